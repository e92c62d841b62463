# Unit tests that take seconds, labelled slow as well as cpu: `ctest -LE slow` (the quick loop) skips
# them, CI runs them. CTest includes this file after gtest_discover_tests' list of the unit tests.
#  - the property test draws GPUs for a fixed 12 s (GPU_TOPOLOGY_PROPERTY_SECONDS);
#  - the simulated headers are rendered and compiled once per description (about 8 s of CPU).
set_tests_properties(SimulateProperty.NoDrawnGpuGetsAWrongValueVouchedFor
                     SimulateHeader.RenderedFromEverySimulatedProfileFitsItsHierarchy
                     SimulateHeader.RenderedFromASimulatedProfileCompilesForTheDevice
                     PROPERTIES LABELS "cpu;slow")
