# Tests of cmake/MonkeyRocksDBVersion.cmake on made-up version.h files: the
# version read, and the C++ standard (C++17 up to RocksDB 10.6, C++20 from
# 10.7 on). Run as cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -P <this>.
include(${SOURCE_DIR}/cmake/MonkeyRocksDBVersion.cmake)
set(failures 0)
foreach(case "7;8;3;17" "9;11;2;17" "10;6;2;17" "10;7;0;20" "10;10;1;20"
             "11;8;1;20" "12;0;0;20")
  list(GET case 0 major)
  list(GET case 1 minor)
  list(GET case 2 patch)
  list(GET case 3 want_standard)
  set(dir ${WORK_DIR}/${major}.${minor}.${patch})
  file(WRITE ${dir}/include/rocksdb/version.h
       "#pragma once\n#define ROCKSDB_MAJOR ${major}\n"
       "#define ROCKSDB_MINOR ${minor}\n#define ROCKSDB_PATCH ${patch}\n"
       "#define ROCKSDB_MAKE_VERSION_INT(a, b, c) ((a) * 1000000 + (b))\n")
  # The first directory has no version.h: the next one is read.
  monkey_rocksdb_version("${WORK_DIR}/none;${dir}/include" version standard)
  if(NOT version STREQUAL "${major}.${minor}.${patch}" OR
     NOT standard STREQUAL want_standard)
    message(SEND_ERROR "${major}.${minor}.${patch}: got version ${version}, "
            "C++${standard}; want C++${want_standard}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()
message(STATUS "all cases passed")
