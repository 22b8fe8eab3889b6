# Shared settings for dtsim's own targets: warnings as the design asks, optional sanitizers, and the link
# options of the executables the GPU bundle carries.
function(dtsim_target_defaults target)
  dtsim_precompiled_headers(${target})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
  if(DTSIM_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(DTSIM_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# Link options of the executables the GPU bundle carries (scripts/gpu-bundle): OpenMPI named first
# (libsimgrid's SMPI defines MPI_* too, and would otherwise be kept for them), then --as-needed, so
# that a library the executable does not use (SimGrid, Qt) is not loaded on the bare GPU machine.
function(dtsim_bundle_link target)
  target_link_options(${target} PRIVATE "LINKER:--push-state,--no-as-needed" "${MPI_mpi_LIBRARY}"
                      "LINKER:--pop-state" "LINKER:--as-needed")
endfunction()

# With DTSIM_PCH, the standard headers and fmt that nearly every file includes are parsed once per kind of target
# instead of once per file. The sanitizer build of scripts/test leaves it off, so that a file missing one of its own
# includes still fails to compile there. Each target is listed here, and dtsim_share_precompiled_headers (called once
# every target exists) gives the first target of each kind the header and has the others reuse it (REUSE_FROM): a
# fresh build compiled the same header for each of 40 targets, 2.4 s each. GCC uses a header only where the code
# generation options match, so a kind is position-independent or not (the Python module makes the libraries it links
# position-independent), and the targets that link Qt (which compiles them with -fPIC) and the Python module keep a
# header of their own.
function(dtsim_precompiled_headers target)
  if(DTSIM_PCH)
    set_property(GLOBAL APPEND PROPERTY DTSIM_PCH_TARGETS ${target})
  endif()
endfunction()

function(dtsim_share_precompiled_headers)
  get_property(targets GLOBAL PROPERTY DTSIM_PCH_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(pic ${target} POSITION_INDEPENDENT_CODE)
    get_target_property(dir ${target} SOURCE_DIR)
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(target MATCHES "gui|_dtsim" OR dir MATCHES "/(gui|python)(/|$)" OR libs MATCHES "Qt6::")
      set(kind ${target})  # a header of its own
    elseif(pic)
      set(kind pic)
    else()
      set(kind plain)
    endif()
    if(DEFINED dtsim_pch_owner_${kind})
      target_precompile_headers(${target} REUSE_FROM ${dtsim_pch_owner_${kind}})
    else()
      set(dtsim_pch_owner_${kind} ${target})
      foreach(h algorithm array cmath functional map memory optional set string string_view vector fmt/format.h)
        target_precompile_headers(${target} PRIVATE "<${h}>")
      endforeach()
    endif()
  endforeach()
endfunction()
