// A Megatron-LM launch read as a scenario (`dtsim import-megatron`): the arguments of pretrain_gpt.py (and
// torchrun's node counts, when the text holds the whole launch line) mapped to the scenario keys they set, so a
// Megatron user describes a job by pasting the command that runs it.
//
// The facts are Megatron-LM's own, at core_v0.9.0 (NVIDIA/Megatron-LM @ 1afee59, megatron/training/arguments.py;
// the newer --fp8-recipe and --grad-reduce-in-bf16 from a later commit), each row of megatron_args.cpp's table
// citing its line: the argument's default where it is left out (--normalization LayerNorm, --num-query-groups 1,
// --make-vocab-size-divisible-by 128, --moe-router-topk 2, ...), and what the script derives from it (the SwiGLU
// width int(8h/3 / 64) x 64 when --ffn-hidden-size is left out, L411-419; gradients accumulated and reduced in
// fp32 under --bf16, L330-338; the vocabulary padded to a multiple of 128 x TP, tokenizer.py L79-90).
//
// One table row per argument: its name, whether it takes a value or is a flag, and the scenario key it sets
// or the rule in megatron_args.cpp that reads it. Arguments that change the cost but that dtsim cannot express
// (multi-latent attention, shared experts, MoE layers every other block, uneven pipeline stages, head widths other
// than hidden / heads, block-scaled fp8) are refused in one line naming the file, the line and the argument.
// Arguments that do not change a step's time (data paths, learning rates, logging, checkpoints, seeds) are
// listed as not read. How to add an argument: its row in kArguments (and, when its mapping is not one key, its
// case in the rules after the table), and a line in tests/core/scenario/megatron_args_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dtsim {

// What a Megatron launch says, as scenario keys.
struct MegatronImport {
  std::vector<std::pair<std::string, std::string>> keys;  // scenario key and value, in the scenario's order
  std::vector<std::string> mapped;                        // "--num-layers 32 (line 3): model.transformer.layers 32"
  std::vector<std::string> not_read;                      // the arguments with no effect on a step's time
  std::optional<int> nodes;                               // torchrun's --nnodes
  std::optional<int> gpus_per_node;                       // torchrun's --nproc-per-node
};

// Reads the arguments (a file's text: one command, lines joined by a trailing backslash, '#' comments, shell
// quotes); throws InputError "ORIGIN:LINE: --ARG: what is wrong (and what would be valid)".
MegatronImport parse_megatron_args(std::string_view text, const std::string& origin);
MegatronImport load_megatron_args(const std::string& path);

// Every argument the table reads, in its order, with the scenario key it sets or "(...)" where it sets none (the
// test holds the names to Megatron-LM's spelling and the keys to the scenario's).
std::vector<std::pair<std::string_view, std::string_view>> megatron_arguments();

}  // namespace dtsim
