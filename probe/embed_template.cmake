# Writes OUTPUT, a C++ source that holds TEMPLATE (templates/gpu_topology.hpp.in) as
# a raw string, so `gpu-topology-probe render` needs no file at run time. Run at build
# time (probe/CMakeLists.txt), when the template changes: a configure writes nothing,
# so two configures of one build tree at once never write one file.
#   cmake -DTEMPLATE=<gpu_topology.hpp.in> -DOUTPUT=<embedded_template.cpp> -P embed_template.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${TEMPLATE}" text)
set(delimiter "gputopology")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${TEMPLATE} contains ')${delimiter}\"', which would end the raw string that embeds it")
endif()
string(CONCAT source
  "// Generated from templates/gpu_topology.hpp.in by probe/embed_template.cmake.\n"
  "#include \"codegen/render.hpp\"\n"
  "namespace gpu_topology::render {\n"
  "std::string_view embedded_header_template() {\n"
  "    static constexpr char text[] = R\"${delimiter}(" "${text}" ")${delimiter}\";\n"
  "    return {text, sizeof text - 1};\n"
  "}\n"
  "}  // namespace gpu_topology::render\n")
file(WRITE "${OUTPUT}" "${source}")
