# Warning flags and helpers shared by every Waitscope target.
add_library(waitscope_compile_options INTERFACE)
target_compile_options(waitscope_compile_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX,C>,$<BOOL:${WAITSCOPE_WERROR}>>:-Werror>)
add_library(waitscope::compile_options ALIAS waitscope_compile_options)
install(TARGETS waitscope_compile_options EXPORT WaitscopeTargets)

# waitscope_add_subdirectories(): adds every immediate subfolder that has a CMakeLists.txt,
# so a part's folders can land one by one without editing their parent.
function(waitscope_add_subdirectories)
  file(GLOB children LIST_DIRECTORIES true RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/*")
  list(SORT children)
  foreach(child IN LISTS children)
    if(IS_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/${child}" AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt")
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

# Marks tests as quick unit tests: the asan-unit workflow (CI) runs every test carrying the
# label "asan-unit". Call it in the directory that adds the tests.
function(waitscope_asan_unit_tests)
  foreach(test IN LISTS ARGN)
    set_property(TEST ${test} APPEND PROPERTY LABELS asan-unit)
  endforeach()
endfunction()
