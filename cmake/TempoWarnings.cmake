# SPDX-License-Identifier: MIT
# Warning and sanitizer flags shared by every target of the project.
# gcc, clang and mingw-gcc take these; MSVC has its own spelling.
if(MSVC)
  set(TEMPO_WARNINGS /W4)
  if(TEMPO_WERROR)
    list(APPEND TEMPO_WARNINGS /WX)
  endif()
else()
  set(TEMPO_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
      -Wmissing-prototypes)
  if(TEMPO_WERROR)
    list(APPEND TEMPO_WARNINGS -Werror)
  endif()
endif()

set(TEMPO_SANITIZE_FLAGS "")
if(TEMPO_SANITIZE)
  set(TEMPO_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
endif()

# tempo_target_flags(<target>): warnings, sanitizers, assert switch.
function(tempo_target_flags target)
  target_compile_options(${target} PRIVATE ${TEMPO_WARNINGS} ${TEMPO_SANITIZE_FLAGS})
  if(TEMPO_SANITIZE)
    target_link_options(${target} PRIVATE ${TEMPO_SANITIZE_FLAGS})
  endif()
  if(TEMPO_NDEBUG_ASSERT)
    target_compile_definitions(${target} PRIVATE TEMPO_NO_ASSERT)
  endif()
endfunction()
