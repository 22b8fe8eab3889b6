// Runs the cuda backend's compression kernels on a GPU against the cpu codecs (real/codec.hpp):
// fp16/bf16 casts bit for bit, top-k, random-k (the host's draws) and sign payloads decoded to
// the same dense gradient, top-k with error feedback over iterations, PowerSGD's Gram-Schmidt
// within 1e-4, int8 within half a quantisation step. Prints "<n> checks, <f> failed"; exit 0, 1 on a failure, 3
// without a device (with the reason).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "real/codec.hpp"
#include "real/cuda/compress_kernels.hpp"

using namespace dtsim;
using namespace dtsim::real;

namespace {

// Wire words compared as bits: packed halves and sign words read as floats can be NaN patterns,
// which never compare equal as floats. The first differing word is printed.
bool same_bits(const float* a, const float* b, size_t words, const char* what) {
  for (size_t i = 0; i < words; ++i) {
    std::uint32_t x = 0, y = 0;
    std::memcpy(&x, a + i, 4);
    std::memcpy(&y, b + i, 4);
    if (x != y) {
      std::printf("%s: word %zu is %08x on the device, %08x on the cpu\n", what, i, x, y);
      return false;
    }
  }
  return true;
}

int checks = 0, failed = 0;

void expect(bool ok, const char* what) {
  ++checks;
  if (!ok) {
    ++failed;
    std::printf("FAILED: %s\n", what);
  }
}

float* device_copy(const std::vector<float>& v) {
  float* d = nullptr;
  cudaMalloc(&d, v.size() * sizeof(float) + 4);
  cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

std::vector<float> host_copy(const float* d, size_t n) {
  std::vector<float> v(n);
  cudaDeviceSynchronize();
  cudaMemcpy(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  return v;
}

CompressionSpec spec_of(const char* method) {
  CompressionSpec s;
  s.method = parse_compression_method(method);
  s.ratio = 0.05;
  s.error_feedback = false;
  return s;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: %s\n", rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
    return 3;
  }
  const std::int64_t n = 10001;
  std::vector<std::vector<float>> grads(3, std::vector<float>(n));
  for (int w = 0; w < 3; ++w) {
    for (std::int64_t e = 0; e < n; ++e) grads[w][e] = std::sin(0.37f * e + w) * (1 + (e % 7));
  }
  float* x = device_copy(grads[0]);
  float* wire = device_copy(std::vector<float>(n + 2));
  float* out = device_copy(std::vector<float>(n));
  for (bool bf16 : {false, true}) {
    const auto c = make_codec(spec_of(bf16 ? "bf16" : "fp16"), n, 1, 0, 1);
    c->compress(grads[0], 0);
    real::cuda::pack_half(x, n, bf16, wire, nullptr);
    expect(same_bits(host_copy(wire, c->wire(0).size()).data(), c->wire(0).data(), c->wire(0).size(), "half pack"),
           bf16 ? "bf16 pack" : "fp16 pack");
    real::cuda::unpack_half(wire, n, bf16, out, nullptr);
    std::vector<float> want(n);
    c->decompress(want);
    expect(host_copy(out, n) == want, bf16 ? "bf16 unpack" : "fp16 unpack");
  }
  {
    const auto c = make_codec(spec_of("topk"), n, 1, 0, 1);
    c->compress(grads[0], 0);
    std::vector<float> want(n);
    c->decompress(want);
    real::cuda::topk_pairs(x, n, c->k(), wire, nullptr);
    cudaMemset(out, 0, n * sizeof(float));
    real::cuda::scatter_pairs(wire, c->k(), out, nullptr);
    expect(host_copy(out, n) == want, "top-k pairs scatter-added");
  }
  {
    std::vector<std::unique_ptr<Codec>> codecs;
    for (int w = 0; w < 3; ++w) codecs.push_back(make_codec(spec_of("sign"), n, 3, w, 1));
    const auto slot = static_cast<size_t>(codecs[0]->slot());
    std::vector<float> all(3 * slot);
    float* payloads = device_copy(all);
    for (int w = 0; w < 3; ++w) {
      codecs[w]->compress(grads[w], 0);
      std::copy_n(codecs[w]->wire(0).begin() + w * slot, slot, all.begin() + w * slot);
      float* xw = device_copy(grads[w]);
      real::cuda::sign_pack(xw, n, payloads + w * slot, nullptr);
      cudaDeviceSynchronize();
      cudaFree(xw);
    }
    const auto gpu = host_copy(payloads, all.size());
    bool bits = true, scales = true;
    for (int w = 0; w < 3; ++w) {
      scales = scales && std::fabs(gpu[w * slot] - all[w * slot]) <= 1e-5f * std::fabs(all[w * slot]);
      bits = bits && same_bits(gpu.data() + w * slot + 1, all.data() + w * slot + 1, slot - 1, "sign bits");
    }
    expect(bits, "sign bits");
    expect(scales, "sign scales (mean |x|)");
    real::cuda::sign_vote(payloads, 3, static_cast<std::int64_t>(slot), n, out, nullptr);
    for (auto& c : codecs) c->wire(0) = all;
    std::vector<float> want(n);
    codecs[0]->decompress(want);
    const auto have = host_copy(out, n);
    bool votes = true;
    for (std::int64_t e = 0; e < n; ++e) votes = votes && std::fabs(have[e] - want[e]) <= 1e-5f * std::fabs(want[e]);
    expect(votes, "sign majority vote");
    cudaFree(payloads);
  }
  {  // random-k: the host's draws gathered on the device are the cpu codec's payload, bit for bit
    const auto c = make_codec(spec_of("randomk"), n, 1, 0, 7);
    c->compress(grads[0], 3);
    std::vector<float> want(n);
    c->decompress(want);
    const std::vector<std::int64_t> chosen = randomk_draw(7, 0, 3, n, c->k());
    const std::vector<unsigned> index(chosen.begin(), chosen.end());
    unsigned* d_index = nullptr;
    cudaMalloc(&d_index, index.size() * sizeof(unsigned));
    cudaMemcpy(d_index, index.data(), index.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    real::cuda::gather_pairs(x, d_index, c->k(), wire, nullptr);
    expect(same_bits(host_copy(wire, c->wire(0).size()).data(), c->wire(0).data(), c->wire(0).size(), "random-k pairs"),
           "random-k pairs");
    cudaMemset(out, 0, n * sizeof(float));
    real::cuda::scatter_pairs(wire, c->k(), out, nullptr);
    expect(host_copy(out, n) == want, "random-k pairs scatter-added");
    cudaFree(d_index);
  }
  {  // error feedback over three iterations of top-k: x = g + residual, residual = x - decoded
    CompressionSpec s = spec_of("topk");
    s.error_feedback = true;
    const auto c = make_codec(s, n, 1, 0, 1);
    float* residual = device_copy(std::vector<float>(n, 0.0f));
    float* xs = device_copy(std::vector<float>(n));
    bool same = true;
    for (int it = 0; it < 3; ++it) {
      c->compress(grads[it], it);
      std::vector<float> want(n);
      c->decompress(want);
      float* g = device_copy(grads[it]);
      real::cuda::add_residual(g, residual, n, xs, nullptr);
      real::cuda::topk_pairs(xs, n, c->k(), wire, nullptr);
      cudaMemset(out, 0, n * sizeof(float));
      real::cuda::scatter_pairs(wire, c->k(), out, nullptr);
      real::cuda::keep_residual(xs, out, n, 1.0f, residual, nullptr);
      same = same && host_copy(out, n) == want;
      cudaFree(g);
    }
    expect(same, "top-k with error feedback, three iterations");
    cudaFree(residual);
    cudaFree(xs);
  }
  {  // PowerSGD's orthogonalisation: the device's Gram-Schmidt of P against the cpu codec's
    CompressionSpec s = spec_of("powersgd");
    s.rank = 4;
    const auto c = make_codec(s, n, 1, 0, 5);
    c->compress(grads[0], 0);
    const std::vector<float> p(c->wire(0).begin(), c->wire(0).end());
    float* d_p = device_copy(p);
    real::cuda::orthogonalise(d_p, c->rows(), c->rank(), nullptr);
    c->between();
    const auto have = host_copy(d_p, p.size());
    bool close = true;
    for (size_t i = 0; i < p.size(); ++i) close = close && std::fabs(have[i] - c->wire(0)[i]) <= 1e-4f;
    expect(close, "PowerSGD orthogonalisation (orthonormal columns within 1e-4)");
    cudaFree(d_p);
  }
  {
    std::int8_t* q = nullptr;
    float* scale = nullptr;
    cudaMalloc(&q, n);
    cudaMalloc(&scale, sizeof(float));
    cudaMemset(out, 0, n * sizeof(float));
    real::cuda::quantize_int8(x, n, q, scale, nullptr);
    real::cuda::dequantize_int8_add(q, scale, n, out, nullptr);
    const auto back = host_copy(out, n);
    const auto s = host_copy(scale, 1)[0];
    float max_abs = 0;
    for (float v : grads[0]) max_abs = std::fmax(max_abs, std::fabs(v));
    expect(s == max_abs / 127.0f, "int8 scale is max |x| / 127");
    bool close = true;
    for (std::int64_t e = 0; e < n; ++e) close = close && std::fabs(back[e] - grads[0][e]) <= 0.5f * s * 1.001f;
    expect(close, "int8 round trip within half a step");
    cudaFree(q);
    cudaFree(scale);
  }
  const cudaError_t last = cudaGetLastError();
  expect(last == cudaSuccess, cudaGetErrorString(last));
  std::printf("%d checks, %d failed\n", checks, failed);
  return failed == 0 ? 0 : 1;
}
