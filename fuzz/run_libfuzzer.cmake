# SPDX-License-Identifier: MIT
# run_libfuzzer.cmake — one libFuzzer run as a test:
#   cmake -DFUZZER=<fuzz_t> -DSECONDS=<n> -DWORK=<folder> -DINPUTS=<seed folders>
#         -P run_libfuzzer.cmake
# Starts from an empty WORK/corpus (so every run starts from the same seeds),
# fuzzes SECONDS with a fixed seed, and writes WORK/summary.txt (executions,
# coverage). Fails, with the end of libFuzzer's log and the crashing input's
# path, if the target crashed or broke a property, or ran nothing.
foreach(v FUZZER SECONDS WORK INPUTS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_libfuzzer.cmake: ${v} is not set")
  endif()
endforeach()
get_filename_component(name ${FUZZER} NAME)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -seed=1 -timeout=20 -print_final_stats=1
          -artifact_prefix=${WORK}/ ${WORK}/corpus ${INPUTS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
file(WRITE ${WORK}/fuzz.log "${out}")
string(REGEX MATCH "stat::number_of_executed_units: *([0-9]+)" _ "${out}")
set(runs "${CMAKE_MATCH_1}")
string(REGEX MATCHALL "cov: *[0-9]+" covs "${out}")
list(LENGTH covs ncov)
set(cov "")
if(ncov GREATER 0)
  list(GET covs -1 last)
  string(REGEX REPLACE "cov: *" "" cov "${last}")
endif()
if(NOT rc EQUAL 0 OR runs STREQUAL "" OR runs EQUAL 0)
  string(LENGTH "${out}" len)
  if(len GREATER 6000)
    math(EXPR from "${len} - 6000")
    string(SUBSTRING "${out}" ${from} 6000 out)
  endif()
  file(GLOB artifacts ${WORK}/crash-* ${WORK}/leak-* ${WORK}/timeout-* ${WORK}/oom-*)
  message(FATAL_ERROR "${name}: exit ${rc}, ${runs} runs\n${out}\nartifacts: ${artifacts}")
endif()
file(WRITE ${WORK}/summary.txt "${name}: ${SECONDS} s, ${runs} runs, coverage ${cov}\n")
message("${name}: ${SECONDS} s, ${runs} runs, coverage ${cov}")
