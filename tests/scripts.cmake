# SPDX-License-Identifier: MIT
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

# The minimal examples (examples/minimal): the synctest of a tiny game passes,
# synctest finds the determinism bug its --bug flag adds, and two peers over
# UDP on loopback end on the same checksum.
if(TARGET minimal_synctest)
  add_test(NAME minimal_synctest COMMAND minimal_synctest)
  add_test(NAME minimal_synctest_finds_a_bug COMMAND minimal_synctest --bug)
  set_tests_properties(minimal_synctest_finds_a_bug PROPERTIES
    PASS_REGULAR_EXPRESSION "first mismatch at frame [0-9]+")
  add_test(NAME minimal_udp COMMAND minimal_udp)
  set_tests_properties(minimal_synctest minimal_synctest_finds_a_bug minimal_udp
    PROPERTIES TIMEOUT 30)
endif()
# Test scripts reserve their loopback ports so parallel runs cannot collide.
add_test(NAME test_ports_reserved COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ports_selftest.sh
         ${CMAKE_CURRENT_BINARY_DIR}/ports_selftest)
# make docs-check's comparison of quoted figures with their commands bites.
add_test(NAME docs_check_selftest COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs_check_selftest.sh
         ${PROJECT_SOURCE_DIR}/scripts/docs-check.sh)
# The README's integration section quotes minimal_udp.c line for line.
add_test(NAME readme_quotes_minimal_udp COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/readme_quotes.sh
         ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/examples/minimal/minimal_udp.c)
