# Optional parts of dtsim: each switches on when its dependency is found; configure reports them.
set(DTSIM_FOUND_REPORT "")
set(DTSIM_OFF_REPORT "")

macro(dtsim_optional name option_var found_var why)
  if(NOT ${option_var})
    list(APPEND DTSIM_OFF_REPORT "${name} (switched off by ${option_var}=OFF)")
  elseif(${found_var})
    list(APPEND DTSIM_FOUND_REPORT "${name}")
  else()
    list(APPEND DTSIM_OFF_REPORT "${name} (${why})")
  endif()
endmacro()

if(DTSIM_WITH_QT)
  find_package(Qt6 QUIET COMPONENTS Widgets Charts Svg Test)
endif()
dtsim_optional("Qt 6 viewer (dtsim-gui)" DTSIM_WITH_QT Qt6_FOUND "Qt6 Widgets/Charts/Svg not found")

if(DTSIM_WITH_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
endif()
dtsim_optional("MPI backend" DTSIM_WITH_MPI MPI_CXX_FOUND "MPI not found")

if(DTSIM_WITH_CUDA)
  find_package(CUDAToolkit QUIET)
endif()
dtsim_optional("CUDA backend" DTSIM_WITH_CUDA CUDAToolkit_FOUND "CUDA toolkit not found")

# The Python module (python/): pybind11 and the Python headers; not with the sanitizers (a module
# built with them would need them preloaded into python3).
set(DTSIM_PYTHON_FOUND FALSE)
if(DTSIM_WITH_PYTHON AND NOT DTSIM_SANITIZE)
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 2.6 CONFIG QUIET)
    set(DTSIM_PYTHON_FOUND ${pybind11_FOUND})
  endif()
endif()
if(DTSIM_SANITIZE AND DTSIM_WITH_PYTHON)
  list(APPEND DTSIM_OFF_REPORT "Python module (not with the sanitizers)")
else()
  dtsim_optional("Python module (build/python)" DTSIM_WITH_PYTHON DTSIM_PYTHON_FOUND
                 "Python 3 headers or pybind11 not found: apt-get install python3-dev pybind11-dev")
endif()

# Chakra execution traces (dtsim export-chakra / import-chakra, workload.chakra): Debian's protobuf
# compiles core/chakra/et_def.proto; zlib reads gzip-compressed traces.
option(DTSIM_WITH_CHAKRA "Read and write Chakra traces when protobuf and zlib are found" ON)
if(DTSIM_WITH_CHAKRA)
  find_package(Protobuf QUIET)
  find_package(ZLIB QUIET)
endif()
if(Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE AND ZLIB_FOUND)
  set(DTSIM_CHAKRA_FOUND TRUE)
else()
  set(DTSIM_CHAKRA_FOUND FALSE)
endif()
set(DTSIM_CHAKRA_NAME "Chakra traces (protobuf, zlib)")
if(DTSIM_CHAKRA_FOUND)
  set(DTSIM_CHAKRA_NAME "Chakra traces (protobuf ${Protobuf_VERSION}, zlib ${ZLIB_VERSION_STRING})")
endif()
dtsim_optional("${DTSIM_CHAKRA_NAME}" DTSIM_WITH_CHAKRA DTSIM_CHAKRA_FOUND
               "protobuf (libprotobuf-dev, protobuf-compiler) or zlib not found")

# SimGrid runs create and free millions of small objects (activities, actors, op records): with
# jemalloc a large one takes 0.7x the time it takes with glibc's allocator (docs/PERFORMANCE.md).
# Only the dtsim executable links it; the sanitizers bring their own allocator.
if(DTSIM_WITH_JEMALLOC AND NOT DTSIM_SANITIZE)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(JEMALLOC QUIET IMPORTED_TARGET jemalloc)
  endif()
endif()
if(DTSIM_SANITIZE)
  list(APPEND DTSIM_OFF_REPORT "jemalloc allocator (the sanitizers' own allocator is used)")
else()
  dtsim_optional("jemalloc allocator (dtsim)" DTSIM_WITH_JEMALLOC JEMALLOC_FOUND "jemalloc not found")
endif()

function(dtsim_report_options)
  message(STATUS "dtsim ${PROJECT_VERSION} (${CMAKE_BUILD_TYPE})")
  foreach(item IN LISTS DTSIM_FOUND_REPORT)
    message(STATUS "  found:        ${item}")
  endforeach()
  foreach(item IN LISTS DTSIM_OFF_REPORT)
    message(STATUS "  switched off: ${item}")
  endforeach()
endfunction()
