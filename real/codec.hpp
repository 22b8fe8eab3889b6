// Gradient compression applied to real buffers, one gradient unit (DDP bucket or layer) of one
// worker: the compressors of models/compression/ carried out on floats, with error feedback, and
// wire buffers the size the Plan's collectives say (rounded up to whole floats per rank). Pure
// numerics, no MPI: the executor runs the collectives on wire() between the steps.
//   fp16, bf16: the values rounded to half precision (round to nearest even), two per float slot,
//     AllReduced with a half-precision sum (reduce_into).
//   topk, randomk: k = ceil(ratio * n) (index, value) pairs (the index's bits in a float slot),
//     AllGathered, scatter-added.
//   sign: the mean |x| then one bit per element, AllGathered; majority vote times the summed scales.
//   powersgd: M (m x n', the squarest reshape), P = M Q AllReduced, orthogonalised, Q = M^T P
//     AllReduced, M ~ P Q^T (the sum over workers); Q kept as the next warm start.
//   int8, qsgd (parameter-server pushes only): a max-|x| scale (int8: q = round(x / scale),
//     scale = max |x| / 127, one byte each) or the L2 norm (qsgd: s levels, stochastic rounding,
//     ceil(log2(s + 1)) magnitude bits and a sign bit each), decoded one push at a time. Their
//     packed integers cannot be summed by a float collective, so AllReduce jobs refuse them.
// One class per method in real/codecs/, chosen by make_codec (registry.cpp). Which methods each
// backend carries out, and where, is the methods' table (models/compression/method.hpp:
// MethodTraits::cpu and ::cuda).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/compression/compressor.hpp"

namespace dtsim::real {

// How a collective's receiver adds a chunk into its own: floats, or pairs of packed halves.
enum class Reduction { Float, Half, Bfloat16 };
void reduce_into(Reduction r, float* into, const float* from, std::int64_t n);

std::uint16_t to_half(float x);  // IEEE binary16, round to nearest even
float from_half(std::uint16_t h);
std::uint16_t to_bfloat16(float x);  // round to nearest even
float from_bfloat16(std::uint16_t h);

// Random-k's k distinct indices of n, uniformly (selection sampling, ascending), from a stream of
// its own per worker and iteration: what Codec::compress sends, drawn alone (the cuda backend
// draws them on the host, since they do not depend on the gradients).
std::vector<std::int64_t> randomk_draw(std::uint64_t seed, int me, int iteration, std::int64_t n, std::int64_t k);

// How a check record names an exchange: "allreduce", "allgather", "low-rank allreduces".
std::string_view exchange_label(Exchange e);

// One worker's codec of one unit, for one method: a class per method in real/codecs/ (a file
// each), made by make_codec from the methods' table. The base keeps what every method shares:
// the gradient plus error feedback (x), this worker's decoded contribution (own), the wires and
// the residual; a method encodes x into its payload and combines the exchanged wires.
class Codec {
 public:
  virtual ~Codec() = default;
  Codec(const Codec&) = delete;
  Codec& operator=(const Codec&) = delete;

  CompressionMethod method() const { return spec_.method; }
  Exchange exchange() const { return exchange_; }
  // Whether this codec keeps error feedback: the spec's, but never for the casts (as DDP's hooks).
  bool error_feedback() const { return !residual_.empty(); }
  // How the exchange's collective sums the wire: as halves for the casts, else as floats.
  virtual Reduction reduction() const { return Reduction::Float; }
  // The buffer of the exchange's collective `i` (0, and 1 for PowerSGD's Q).
  std::vector<float>& wire(int i) { return i == 0 ? wire_ : wire2_; }
  // Floats the AllGather gives each rank (a multiple of nothing else; the wire holds workers of them).
  std::int64_t slot() const { return slot_; }

  // Step 0: error feedback added to the gradient, then encoded into wire(0).
  void compress(std::span<const float> grad, int iteration);
  // PowerSGD between the AllReduces: orthogonalise P (in wire(0)), Q = M^T P into wire(1).
  // RuntimeError for the other methods (one collective each).
  virtual void between();
  // Last step: the combined gradient (the sum over workers) into `out`; error feedback updated.
  // RuntimeError for the methods only parameter-server pushes carry (int8, qsgd).
  virtual void decompress(std::span<float> out);

  // A parameter-server push has no decompress on the worker: error feedback keeps x minus what
  // this worker's payload decodes to, right after compress.
  void keep_residual();
  // Whether decoding gives back exactly what was compressed for integer-valued gradients (fp16,
  // bf16, top-k or random-k sending every element, no error feedback needed).
  virtual bool lossless() const { return false; }

  // One worker's payload in wire(0) (a parameter server's receive; workers = 1) decoded into
  // `out`, without touching error feedback: every method a parameter-server push carries out
  // (MethodTraits::cpu); RuntimeError for the others (PowerSGD's factors are AllReduced).
  virtual void decode(std::span<float> out) const;

  // What the last decompress should have given, for the backends' checks, from this worker's own
  // decoded contribution and `sum` (an in-place float sum over the exchange's workers, run outside
  // the timed interval): by default the summed contributions, exactly; sign: the vote of the summed
  // signs times the summed scales; PowerSGD: P P^T (the summed M) with P from wire(0).
  struct Expected {
    std::vector<float> values;  // the first size() elements of the combined gradient
    float tolerance = 0;        // absolute, per element
  };
  using GroupSum = std::function<void(std::span<float>)>;
  virtual Expected expected(const GroupSum& sum) const;

  // This worker's own decoded contribution of the last iteration (the check's reference sums them
  // over workers): for PowerSGD, M itself (the reference is P P^T sum M).
  const std::vector<float>& own() const { return own_; }
  // PowerSGD's shape: M is rows() x cols() (the squarest reshape, zero-padded past size()), its
  // factors of rank(); 0 for the other methods.
  virtual int rows() const { return 0; }
  virtual int cols() const { return 0; }
  virtual int rank() const { return 0; }
  // PowerSGD: the Q the next compress multiplies by (cols x r, column-major): the first, drawn
  // from the seed, until a decompress keeps the summed one; empty for the other methods.
  virtual std::span<const float> q() const { return {}; }
  std::int64_t size() const { return n_; }
  // Top-k and random-k: the pairs each worker sends; 0 for the other methods.
  std::int64_t k() const { return k_; }

 protected:
  // `slot` floats per worker in the AllGather (0: the method sizes wire(0) itself); error
  // feedback kept when `feedback`.
  Codec(const CompressionSpec& spec, std::int64_t n, int workers, int me, std::uint64_t seed, std::int64_t slot,
        bool feedback);
  // Step 0 of the method: x_ (the gradient plus error feedback) into this worker's payload and own_.
  virtual void encode(int iteration) = 0;
  // This worker's slot of an AllGather wire.
  float* mine() { return wire_.data() + slot_ * me_; }
  // The sum over the workers of own_, by `sum`.
  std::vector<float> summed_own(const GroupSum& sum) const;

  CompressionSpec spec_;
  Exchange exchange_;
  std::int64_t n_;
  int workers_, me_;
  std::uint64_t seed_;
  std::int64_t k_ = 0, slot_ = 0;
  std::vector<float> residual_, x_, own_, wire_, wire2_;
};

// The codec of `spec.method` for a unit of `n` elements, from the methods' table
// (real/codecs/registry.cpp); `workers` in the exchange, this one `me`; `seed` makes random-k's
// draws and PowerSGD's first Q (the same on every worker) reproducible. Throws RuntimeError for
// none (there is nothing to compress).
std::unique_ptr<Codec> make_codec(const CompressionSpec& spec, std::int64_t n, int workers, int me, std::uint64_t seed);

}  // namespace dtsim::real
