# SPDX-License-Identifier: MIT
# Command-line tests of the tools and of the installed package.
if(TARGET tempo-sim)
  add_test(NAME sim_synctest
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_synctest.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/sim_synctest)
  set_tests_properties(sim_synctest PROPERTIES TIMEOUT 300)
  add_test(NAME sim_desync_diff
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_desync_diff.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/sim_desync_diff)
  set_tests_properties(sim_desync_diff PROPERTIES TIMEOUT 300)
endif()

# Install to a temporary prefix and build a consumer with find_package and
# pkg-config (not under sanitizers: the consumer is built without them).
if(NOT TEMPO_SANITIZE)
  add_test(NAME install_consumer
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer.sh ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/install_consumer ${CMAKE_C_COMPILER})
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
endif()

# test_sim_report compiles tempo-sim's report, SVG, verdict, CSV and timeline sources itself
# (tempo-sim is a program, not a library).
if(TARGET test_sim_report)
  target_sources(test_sim_report PRIVATE
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/sim_report.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/sim_svg.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/sim_verdict.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/sim_csv.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/sim_timeline.c)
  target_include_directories(test_sim_report PRIVATE ${PROJECT_SOURCE_DIR}/tools/tempo-sim)
endif()

# The SDL2 demo without a display (SDL_VIDEODRIVER=offscreen): headless
# screenshots, the window loop itself, and two processes playing over UDP.
# Exit 77 = no video driver = skip.
if(TARGET tempo-arena-sdl)
  foreach(mode headless window p2p)
    add_test(NAME arena_sdl_${mode}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_sdl.sh $<TARGET_FILE:tempo-arena-sdl>
              ${CMAKE_CURRENT_BINARY_DIR}/arena_sdl_${mode} ${mode})
    set_tests_properties(arena_sdl_${mode} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
endif()

# The tests below are POSIX shell scripts (and a command beside them): not
# registered in a Windows build, whose programs they cannot start.

# tempo-sim network mode: clean, desync, drop, spectator, compare, default
# scenario, reproducibility and usage errors (tests/sim_network.sh).
if(TARGET tempo-sim AND NOT WIN32)
  add_test(NAME sim_network
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_network.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/sim_network)
  set_tests_properties(sim_network PROPERTIES TIMEOUT 300)
endif()

# Real processes over UDP on loopback (and through tempo-netem).
if(TARGET tempo-arena AND TARGET tempo-netem AND NOT WIN32)
  add_test(NAME arena_multiprocess
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_multiprocess.sh $<TARGET_FILE:tempo-arena>
            $<TARGET_FILE:tempo-netem> ${CMAKE_CURRENT_BINARY_DIR}/arena_multiprocess)
  set_tests_properties(arena_multiprocess PROPERTIES TIMEOUT 300)
  # --record on both peers of a real match, --replay of each file.
  add_test(NAME arena_replay
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_replay.sh $<TARGET_FILE:tempo-arena>
            ${CMAKE_CURRENT_BINARY_DIR}/arena_replay)
  set_tests_properties(arena_replay PROPERTIES TIMEOUT 120)
  # One of three peers killed and started again with --rejoin.
  add_test(NAME arena_rejoin
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_rejoin.sh $<TARGET_FILE:tempo-arena>
            ${CMAKE_CURRENT_BINARY_DIR}/arena_rejoin)
  set_tests_properties(arena_rejoin PROPERTIES TIMEOUT 120)
endif()

# tempo-flood's command line and accounting (the flood of a real match is
# tests/arena_flood.sh, run by `make flood`).
if(TARGET tempo-flood AND NOT WIN32)
  add_test(NAME tempo_flood
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tempo_flood.sh $<TARGET_FILE:tempo-flood>)
  set_tests_properties(tempo_flood PROPERTIES TIMEOUT 60)
endif()

# tempo-sim scenario files (every file in scenarios/ runs clean, the default
# file is the built-in default, bad files name their line, a soak failure's
# scenario reproduces it) and a short soak: 50 random scenarios, each checked
# (tempo-sim --soak; `make soak` runs thousands).
if(TARGET tempo-sim AND NOT WIN32)
  add_test(NAME sim_scenario
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_scenario.sh $<TARGET_FILE:tempo-sim>
            ${PROJECT_SOURCE_DIR}/scenarios ${CMAKE_CURRENT_BINARY_DIR}/sim_scenario)
  set_tests_properties(sim_scenario PROPERTIES TIMEOUT 300)
  add_test(NAME sim_soak COMMAND tempo-sim --soak 50 --seed 100000 --quiet)
  set_tests_properties(sim_soak PROPERTIES TIMEOUT 300)
endif()

# 20,000 forged, mutated and replayed datagrams at a sealed match (tempo-sim
# --attack; `make attack` throws a million): exit 0 only if every one was
# sent and refused, the counts add up and the match was not disturbed.
if(TARGET tempo-sim AND TEMPO_HAVE_SODIUM AND NOT WIN32)
  add_test(NAME sim_attack COMMAND tempo-sim --attack 20000 --seed 7 --quiet)
  # --record, and the replays a failed soak scenario leaves (tests/sim_record.sh).
  if(TARGET tempo-arena)
    add_test(NAME sim_record COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_record.sh $<TARGET_FILE:tempo-sim>
             $<TARGET_FILE:tempo-arena> ${CMAKE_CURRENT_BINARY_DIR}/sim_record)
    set_tests_properties(sim_record PROPERTIES TIMEOUT 120)
  endif()
  # --compare interpolation | reckoning | lagcomp (tests/sim_view.sh).
  add_test(NAME sim_view COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_view.sh $<TARGET_FILE:tempo-sim>
           ${CMAKE_CURRENT_BINARY_DIR}/sim_view)
  set_tests_properties(sim_view PROPERTIES TIMEOUT 120)
  set_tests_properties(sim_attack PROPERTIES TIMEOUT 300)
endif()

# tempo-sim's settings table: documented ranges, each setting accepted at
# its ends and refused just outside from the command line and from a file
# with the same message, --help lists every setting, scenario round trip.
if(TARGET tempo-sim)
  add_test(NAME sim_settings
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_settings.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/sim_settings)
  set_tests_properties(sim_settings PROPERTIES TIMEOUT 120)
endif()

# The default report as headless Chromium lays it out at 1280 and 1920 px:
# nothing wider than the window, every chart with room, real screenshots.
# Exit 77 = no Chromium = skip (the reason is printed).
if(TARGET tempo-sim AND NOT WIN32)
  add_test(NAME report_render
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/report_render.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/report_render)
  set_tests_properties(report_render PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()

# tempo-token: new keys, minting, showing and opening tokens, refusals.
if(TARGET tempo-token AND TEMPO_HAVE_SODIUM AND NOT WIN32)
  add_test(NAME tempo_token
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tempo_token.sh $<TARGET_FILE:tempo-token>
            ${CMAKE_CURRENT_BINARY_DIR}/tempo_token)
  set_tests_properties(tempo_token PROPERTIES TIMEOUT 60)
endif()
