# shellcheck shell=bash
# The GPU bundle's environment (copied as DIR/env.sh by scripts/gpu-bundle). Source it with bash:
#   . DIR/env.sh && dtsim-real scenarios/quickstart.yaml --backend cuda
# Puts the bundle's programs on PATH and its libraries on LD_LIBRARY_PATH, then finds CUDA's own
# libraries (the runtime, cuBLAS, NCCL: never carried, the target's are used) where the machine has
# them: already known to the loader, $CUDA_HOME or /usr/local/cuda, or the pip packages' nvidia/*/lib
# folders of python3 (nvidia-cuda-runtime, nvidia-cublas, nvidia-nccl-cu13). Returns 3 with one line
# saying which library is missing and where it looked.
dtsim_bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$dtsim_bundle/bin:${PATH:-/usr/local/bin:/usr/bin:/bin}"
export LD_LIBRARY_PATH="$dtsim_bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DTSIM_BUNDLE="$dtsim_bundle"

dtsim_cuda_dirs() {
  local d py sp
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -n "$d" ] && printf '%s\n' "$d/lib64" "$d/lib" "$d/targets/x86_64-linux/lib"
  done
  for py in python3 /opt/torch/.venv/bin/python3 /usr/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    for sp in $("$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null); do
      for d in "$sp"/nvidia/*/lib; do
        [ -d "$d" ] && printf '%s\n' "$d"
      done
    done
  done
}

dtsim_find_cuda() {
  local lib dir found missing="" looked
  looked="$(dtsim_cuda_dirs | awk '!seen[$0]++' | tr '\n' ' ')"
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    found=""
    for dir in $looked; do
      if [ -e "$dir/$lib" ]; then
        case ":$LD_LIBRARY_PATH:" in *":$dir:"*) ;; *) LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir" ;; esac
        found=1
        break
      fi
    done
    if [ -z "$found" ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q "$lib "; then missing="$missing $lib"; fi
  done
  export LD_LIBRARY_PATH
  if [ -n "$missing" ]; then
    echo "gpu bundle: CUDA's libraries not found:$missing (looked in: ${looked:-nothing} and the loader's cache);" \
      "install the CUDA toolkit and NCCL, or pip install nvidia-cuda-runtime nvidia-cublas nvidia-nccl-cu13" >&2
    return 3
  fi
}

dtsim_find_cuda
