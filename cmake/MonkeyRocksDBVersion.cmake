# Reads the version of the RocksDB we build against from its
# include/rocksdb/version.h, and the C++ standard its headers need: RocksDB's
# own CMake builds with C++17 up to 10.6 and C++20 from 10.7 on, and code that
# includes its headers must use at least that standard.

# monkey_rocksdb_version(<include dirs> <version var> <standard var>):
# the first <dir>/rocksdb/version.h found gives MAJOR.MINOR.PATCH and the
# standard (17 or 20). Fails the configuration when there is none.
function(monkey_rocksdb_version include_dirs version_var standard_var)
  set(header "")
  foreach(dir IN LISTS include_dirs)
    if(EXISTS "${dir}/rocksdb/version.h")
      set(header "${dir}/rocksdb/version.h")
      break()
    endif()
  endforeach()
  if(NOT header)
    message(FATAL_ERROR "No rocksdb/version.h in RocksDB's include "
            "directories '${include_dirs}'")
  endif()
  file(STRINGS "${header}" lines
       REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(part MAJOR MINOR PATCH)
    set(${part} "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^#define ROCKSDB_${part} +([0-9]+)")
        set(${part} ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(${part} STREQUAL "")
      message(FATAL_ERROR "${header} defines no ROCKSDB_${part}")
    endif()
  endforeach()
  set(version "${MAJOR}.${MINOR}.${PATCH}")
  if(version VERSION_GREATER_EQUAL 10.7)
    set(standard 20)
  else()
    set(standard 17)
  endif()
  set(${version_var} ${version} PARENT_SCOPE)
  set(${standard_var} ${standard} PARENT_SCOPE)
endfunction()
