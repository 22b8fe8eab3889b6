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

# With DTSIM_PCH, the standard headers and fmt that nearly every file includes are parsed once per target instead of
# once per file. The sanitizer build of scripts/test leaves it off, so that a file missing one of its own includes
# still fails to compile there.
function(dtsim_precompiled_headers target)
  if(DTSIM_PCH)
    foreach(h algorithm array cmath functional map memory optional set string string_view vector fmt/format.h)
      target_precompile_headers(${target} PRIVATE "<${h}>")
    endforeach()
  endif()
endfunction()
