# Script-driven and multi-process tests, included by tests/CMakeLists.txt.

# test_netem spawns the tempo-netem tool: tell it where the tool is built.
# Without the tools (TEMPO_BUILD_TOOLS=OFF) its tests skip.
if(TARGET test_netem AND TARGET tempo-netem)
  target_compile_definitions(test_netem PRIVATE TEMPO_NETEM_PATH="$<TARGET_FILE:tempo-netem>")
  add_dependencies(test_netem tempo-netem)
endif()

# The layering rule of src/ (docs/ARCHITECTURE.md), and proof the check bites.
add_test(NAME layers COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/layers.sh ${PROJECT_SOURCE_DIR})
add_test(NAME layers_catch_violations COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/layers_selftest.sh
         ${CMAKE_CURRENT_SOURCE_DIR}/layers.sh)
