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

# test_sim_report compiles tempo-sim's report, SVG, verdict, CSV and timeline sources, and the
# writer and measures they use, itself
# (tempo-sim is a program, not a library).
if(TARGET test_sim_report)
  target_sources(test_sim_report PRIVATE
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/p2p/sim_report.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/report/sim_svg.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/p2p/sim_verdict.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/p2p/sim_csv.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/p2p/sim_timeline.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/report/sim_out.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/report/sim_json.c
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/core/sim_metrics.c)
  target_include_directories(test_sim_report PRIVATE ${PROJECT_SOURCE_DIR}/tools/tempo-sim/core
    ${PROJECT_SOURCE_DIR}/tools/tempo-sim/report ${PROJECT_SOURCE_DIR}/tools/tempo-sim/p2p)
  if(COMMAND tempo_win32_memstream)
    tempo_win32_memstream(test_sim_report)
  endif()
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

# tempo-sim client-server mode: replay answers at once and agrees with the
# server, dumb answers a round trip late, --compare reconciliation, the
# client-server scenario files, 64 clients, the report, refused options
# (tests/sim_client_server.sh).
if(TARGET tempo-sim AND NOT WIN32)
  add_test(NAME sim_client_server
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_client_server.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_SOURCE_DIR}/scenarios ${CMAKE_CURRENT_BINARY_DIR}/sim_client_server)
  set_tests_properties(sim_client_server PROPERTIES TIMEOUT 300)
endif()

# Real processes over UDP on loopback (and through tempo-netem).
if(TARGET tempo-arena AND TARGET tempo-netem AND NOT WIN32)
  add_test(NAME arena_multiprocess
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_multiprocess.sh $<TARGET_FILE:tempo-arena>
            $<TARGET_FILE:tempo-netem> ${CMAKE_CURRENT_BINARY_DIR}/arena_multiprocess)
  set_tests_properties(arena_multiprocess PROPERTIES TIMEOUT 300)
  # Three peers through a real tempo-relay, unsealed and with tokens.
  if(TARGET tempo-relay)
    if(TARGET tempo-token AND TEMPO_HAVE_SODIUM)
      set(ARENA_RELAY_TOKEN $<TARGET_FILE:tempo-token>)
    else()
      set(ARENA_RELAY_TOKEN -)
    endif()
    add_test(NAME arena_relay
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_relay.sh $<TARGET_FILE:tempo-arena>
              $<TARGET_FILE:tempo-relay> ${ARENA_RELAY_TOKEN} ${CMAKE_CURRENT_BINARY_DIR}/arena_relay)
    set_tests_properties(arena_relay PROPERTIES TIMEOUT 120)
    # Peer-to-peer matches a tempo-relay introduces, behind nftables NATs in
    # network namespaces (as root; skipped otherwise): the pairs make test
    # runs, in parallel. `make nat-lab` runs every pair of NAT types.
    add_test(NAME nat_lab
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/nat_lab.sh $<TARGET_FILE:tempo-arena>
              $<TARGET_FILE:tempo-relay> ${ARENA_RELAY_TOKEN} ${CMAKE_CURRENT_BINARY_DIR}/nat_lab quick)
    set_tests_properties(nat_lab PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
    # A WebSocket member (the browser's path) and two UDP members, sealed.
    if(TARGET tempo-token AND TEMPO_HAVE_SODIUM)
      add_test(NAME arena_ws
        COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_ws.sh $<TARGET_FILE:tempo-arena>
                $<TARGET_FILE:tempo-relay> $<TARGET_FILE:tempo-token> ${CMAKE_CURRENT_BINARY_DIR}/arena_ws)
      set_tests_properties(arena_ws PROPERTIES TIMEOUT 120)
    endif()
    # The page in headless Chromium against two native members (make wasm
    # builds the page; exit 77 = no page or no Chromium = skip).
    set(TEMPO_WASM_PAGE ${PROJECT_SOURCE_DIR}/build/wasm/page CACHE PATH
        "the page make wasm built, for the browser test")
    add_test(NAME browser_arena
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/browser_arena.sh $<TARGET_FILE:tempo-arena>
              $<TARGET_FILE:tempo-relay> ${ARENA_RELAY_TOKEN} ${TEMPO_WASM_PAGE}
              ${CMAKE_CURRENT_BINARY_DIR}/browser_arena)
    set_tests_properties(browser_arena PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
  endif()
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
  # One of three sealed peers stopped past the timeout: it comes back by itself.
  add_test(NAME arena_pause
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/arena_pause.sh $<TARGET_FILE:tempo-arena>
            ${CMAKE_CURRENT_BINARY_DIR}/arena_pause)
  set_tests_properties(arena_pause PROPERTIES TIMEOUT 60)
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
  # the sanitizers run several times slower: they get twice the time
  if(TEMPO_SANITIZE)
    set(TEMPO_SIM_TIMEOUT 600)
  else()
    set(TEMPO_SIM_TIMEOUT 300)
  endif()
  set_tests_properties(sim_scenario PROPERTIES TIMEOUT ${TEMPO_SIM_TIMEOUT})
  # Under the sanitizers (several times slower) 20 of the 50: their purpose
  # there is memory errors, and `make soak` runs thousands.
  if(TEMPO_SANITIZE)
    set(TEMPO_SIM_SOAK_COUNT 20)
  else()
    set(TEMPO_SIM_SOAK_COUNT 50)
  endif()
  add_test(NAME sim_soak COMMAND tempo-sim --soak ${TEMPO_SIM_SOAK_COUNT} --seed 100000 --quiet)
  set_tests_properties(sim_soak PROPERTIES TIMEOUT ${TEMPO_SIM_TIMEOUT})
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
  set_tests_properties(sim_view PROPERTIES TIMEOUT ${TEMPO_SIM_TIMEOUT})
  set_tests_properties(sim_attack PROPERTIES TIMEOUT ${TEMPO_SIM_TIMEOUT})
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
# nothing wider than the window, every chart with room, real screenshots;
# the client-server and lockstep reports too.
# Exit 77 = no Chromium = skip (the reason is printed).
if(TARGET tempo-sim AND NOT WIN32)
  # The report's numbers and names agree with the terminal's.
  add_test(NAME sim_report_facts
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_report_facts.sh $<TARGET_FILE:tempo-sim>
            ${CMAKE_CURRENT_BINARY_DIR}/sim_report_facts)
  set_tests_properties(sim_report_facts PROPERTIES TIMEOUT 60)
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

# tempo-pong over UDP on loopback (tests/pong_udp.sh): a server and 8 bot
# clients end on the server's final line, as do clients reconciling with
# none and dumb; the command line; a sealed match with tempo-token's tokens.
if(TARGET tempo-pong AND NOT WIN32)
  add_test(NAME pong_udp
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pong_udp.sh $<TARGET_FILE:tempo-pong> -
            ${CMAKE_CURRENT_BINARY_DIR}/pong_udp open)
  set_tests_properties(pong_udp PROPERTIES TIMEOUT 60)
  if(TARGET tempo-token AND TEMPO_HAVE_SODIUM)
    add_test(NAME pong_udp_sealed
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pong_udp.sh $<TARGET_FILE:tempo-pong>
              $<TARGET_FILE:tempo-token> ${CMAKE_CURRENT_BINARY_DIR}/pong_udp_sealed sealed)
    set_tests_properties(pong_udp_sealed PROPERTIES TIMEOUT 60)
  endif()
endif()

# tempo-pong-sdl without a display (tests/pong_sdl.sh): --local against
# bots, and the window as a client of a tempo-pong server, reconciling with
# replay and with none; each run leaves a picture. Exit 77 = skip.
if(TARGET tempo-pong-sdl AND TARGET tempo-pong AND NOT WIN32)
  add_test(NAME pong_sdl
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pong_sdl.sh $<TARGET_FILE:tempo-pong-sdl>
            $<TARGET_FILE:tempo-pong> ${CMAKE_CURRENT_BINARY_DIR}/pong_sdl)
  set_tests_properties(pong_sdl PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()

# test_pong_net drives the Pong programs' server and client (pong_app) over
# simnet in virtual time.
if(TARGET test_pong_net)
  target_link_libraries(test_pong_net PRIVATE pong_app)
endif()

# tempo-relay and its load test over loopback UDP.
if(TARGET tempo-relay AND TARGET relay-load AND NOT WIN32)
  add_test(NAME tempo_relay
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tempo_relay.sh $<TARGET_FILE:tempo-relay>
            $<TARGET_FILE:relay-load> ${CMAKE_CURRENT_BINARY_DIR}/tempo_relay)
  set_tests_properties(tempo_relay PROPERTIES TIMEOUT 60)
endif()

# The hitscan demo: lag compensation confirms what shooters saw (tests/hitscan.sh).
if(TARGET tempo-hitscan AND NOT WIN32)
  if(TARGET tempo-hitscan-sdl)
    set(HITSCAN_SDL $<TARGET_FILE:tempo-hitscan-sdl>)
  else()
    set(HITSCAN_SDL "")
  endif()
  add_test(NAME hitscan COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hitscan.sh $<TARGET_FILE:tempo-hitscan>
           "${HITSCAN_SDL}" ${CMAKE_CURRENT_BINARY_DIR}/hitscan)
  set_tests_properties(hitscan PROPERTIES TIMEOUT 120)
endif()

# --topology relay, --lockstep-turns and --compare lockstep on short seeded
# runs (tests/sim_lockstep.sh).
if(TARGET tempo-sim AND NOT WIN32)
  add_test(NAME sim_lockstep COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sim_lockstep.sh $<TARGET_FILE:tempo-sim>
           ${CMAKE_CURRENT_BINARY_DIR}/sim_lockstep)
  set_tests_properties(sim_lockstep PROPERTIES TIMEOUT 300)
endif()

# tempo-relay, tempo-pong --server and tempo-hitscan --server as Agones game
# servers against Agones' own SDK server in local mode, and Edgegap's
# self-stop against a local listener (tests/agones.sh). relay-member plays a match through the relay;
# agones-probe reads the SDK server's record and stands in for the URL.
# Exit 77 = no SDK server = skip (edgegap needs none and always runs).
if(TARGET tempo-relay AND TARGET tempo-pong AND TARGET tempo-hitscan AND NOT WIN32)
  add_executable(relay-member tools/relay_member.c)
  target_include_directories(relay-member PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
  target_link_libraries(relay-member PRIVATE tempo_static tempo_tool_common)
  target_compile_definitions(relay-member PRIVATE _POSIX_C_SOURCE=200809L)
  tempo_target_flags(relay-member)
  add_executable(agones-probe tools/agones_probe.c)
  target_link_libraries(agones-probe PRIVATE tempo_tool_common)
  target_compile_definitions(agones-probe PRIVATE _POSIX_C_SOURCE=200809L)
  tempo_target_flags(agones-probe)
  foreach(case relay_lifecycle relay_drain relay_late relay_restart pong hitscan edgegap)
    add_test(NAME agones_${case}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/agones.sh ${case} $<TARGET_FILE:tempo-relay>
              $<TARGET_FILE:tempo-pong> $<TARGET_FILE:tempo-hitscan> $<TARGET_FILE:relay-member>
              $<TARGET_FILE:agones-probe>
              ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/agones_${case})
    set_tests_properties(agones_${case} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
endif()

# deploy/'s Agones manifests against the schemas of Agones' CRDs kept in
# deploy/schemas, strictly: a misspelled field fails (tests/deploy_manifests.sh).
# Exit 77 = no python3 with jsonschema and yaml = skip.
if(NOT WIN32)
  add_test(NAME deploy_manifests
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/deploy_manifests.sh ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/deploy_manifests)
  set_tests_properties(deploy_manifests PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
endif()

# Every program's --help against the one vocabulary of docs/TOOLS.md
# (tests/tools_help.sh): --version, a usage error for an unknown option,
# each shared option with one meaning and value, the old spellings read.
if(NOT WIN32)
  set(TOOLS_HELP_PROGRAMS "")
  foreach(t tempo-sim tempo-arena tempo-arena-sdl tempo-pong tempo-pong-sdl tempo-hitscan
            tempo-hitscan-sdl tempo-relay relay-load tempo-token tempo-netem tempo-flood)
    if(TARGET ${t})
      list(APPEND TOOLS_HELP_PROGRAMS "${t}=$<TARGET_FILE:${t}>")
    endif()
  endforeach()
  if(TOOLS_HELP_PROGRAMS)
    add_test(NAME tools_help
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tools_help.sh ${PROJECT_SOURCE_DIR}/docs/TOOLS.md
              ${PROJECT_SOURCE_DIR}/include/tempo/base.h ${TOOLS_HELP_PROGRAMS})
    set_tests_properties(tools_help PROPERTIES TIMEOUT 60 ENVIRONMENT "SDL_VIDEODRIVER=dummy")
  endif()
endif()
