# Unit tests that take seconds, labelled slow as well as cpu: `ctest -LE slow` (the quick loop) skips
# them, CI runs them. CTest includes this file after gtest_discover_tests' list of the unit tests.
#  - the property test draws GPUs for a fixed 4 s (GPU_TOPOLOGY_PROPERTY_SECONDS);
#  - the simulated headers are rendered, and a program using each compiled and run (about 10 s alone).
set_tests_properties(SimulateProperty.NoDrawnGpuGetsAWrongValueVouchedFor
                     SimulateHeader.RenderedFromEverySimulatedProfileFitsItsHierarchy
                     SimulateHeader.RenderedFromASimulatedProfileCompilesForTheDevice
                     PROPERTIES LABELS "cpu;slow")
# Their seconds on a quiet two-core machine: CTest starts the costliest first (tests/cmake/CMakeLists.txt).
set_tests_properties(SimulateProperty.NoDrawnGpuGetsAWrongValueVouchedFor PROPERTIES COST 4)
set_tests_properties(ProfileFuzz.WhatValidatesRendersAndItsHeaderCompiles PROPERTIES COST 5)
set_tests_properties(SimulateHeader.RenderedFromEverySimulatedProfileFitsItsHierarchy
                     SimulateHeader.RenderedFromASimulatedProfileCompilesForTheDevice PROPERTIES COST 6)
