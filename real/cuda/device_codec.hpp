// The cuda half of a method's codec: what the kernels of compress_kernels.cu do to a compressed
// unit's device buffers at each step of its exchange, one class per method in codecs/ (a file
// each), chosen by device_codec from the methods' table (models/compression/method.cpp: `cuda`).
// The host half is the cpu codec (real/codec.hpp): it sizes the wires and is the check's reference.
//   Step 0 (compress): error feedback added to the gradient into x, x encoded into this worker's
//     slot of the wire, the residual kept (x minus what the slot decodes to).
//   PowerSGD's middle step (between): P orthogonalised, Q = M^T P.
//   Last step (decompress): the exchanged wire decoded into the combined gradient.
//   A server's receive (decode): one worker's pushed payload decoded into its inbox.
// Adding a method to the cuda backend: its class here, its case in codecs/registry.cpp, and its
// entry's `cuda` in the methods' table.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "models/compression/method.hpp"
#include "real/codec.hpp"
#include "real/host_comm.hpp"

namespace dtsim::real::cuda {

class DeviceCodec;

// One compressed unit of this rank (a worker's, or a server's decoder of one worker's pushes).
struct DeviceUnit {
  std::unique_ptr<Codec> codec;         // the host half, with the job's spec: sizes and the reference
  const DeviceCodec* device = nullptr;  // the cuda half
  std::int64_t n = 0;
  int workers = 1, me = 0;
  std::uint64_t seed = 0;
  float *x = nullptr, *residual = nullptr, *wire = nullptr, *own = nullptr;
  std::int64_t wire_floats = 0;
  float* wire2 = nullptr;  // PowerSGD: Q (cols x r), the second AllReduce's buffer and the warm start
  int m = 0, cols = 0, r = 0;
  unsigned* draws = nullptr;        // random-k: the indices of every iteration, drawn on the host
  cublasHandle_t cublas = nullptr;  // PowerSGD's GEMMs
  HostComm* comm = nullptr;         // the group's ranks, for the references
  int check_op = -1, last_k = -1;   // the decompress op, and the last iteration it ran
};

// Device memory that lives as long as the executor.
using DeviceAlloc = std::function<void*(std::int64_t bytes)>;

class DeviceCodec {
 public:
  virtual ~DeviceCodec() = default;
  // After the unit's buffers are made: what the method needs besides (random-k's draws for
  // `iterations` iterations).
  virtual void prepare(DeviceUnit&, int /*iterations*/, const DeviceAlloc&) const {}
  // Step 0 of iteration k, from the gradient `grad`.
  virtual void compress(DeviceUnit& u, int k, const float* grad, cudaStream_t s) const;
  // PowerSGD's middle step; RuntimeError for the methods of one collective.
  virtual void between(DeviceUnit& u, cudaStream_t s) const;
  // The last step: the exchanged wire decoded into `out`.
  virtual void decompress(DeviceUnit& u, float* out, cudaStream_t s) const;
  // `count` payloads one after another (slots of the wire, or one push) decoded into `out`.
  virtual void decode(const DeviceUnit& u, const float* payloads, int count, float* out, cudaStream_t s) const = 0;

 protected:
  // x encoded into `payload` at iteration k.
  virtual void encode(const DeviceUnit& u, const float* x, int k, float* payload, cudaStream_t s) const = 0;
};

// The cuda half of method m, or null where the cuda backend does not carry it out (the table's
// `cuda` gives it neither exchange).
const DeviceCodec* device_codec(CompressionMethod m);

}  // namespace dtsim::real::cuda
