#!/bin/bash
# Llama 3 8B on one node of 8 GPUs in fp8, as Megatron-LM's examples/llama/train_llama3_8b_h100_fp8.sh lays it out,
# with its shell variables expanded (the command Megatron-LM's launch runs). Test data for dtsim import-megatron.
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node 8 --nnodes 1 --node_rank 0 --master_addr localhost --master_port 29500 \
    pretrain_gpt.py \
    --use-mcore-models \
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
    --group-query-attention --num-query-groups 8 --kv-channels 128 \
    --seq-length 8192 --max-position-embeddings 8192 \
    --position-embedding-type rope --rotary-base 1000000 --rotary-percent 1.0 \
    --attention-dropout 0.0 --hidden-dropout 0.0 \
    --swiglu --normalization RMSNorm --init-method-std 0.0134 \
    --attention-backend fused --apply-layernorm-1p \
    --untie-embeddings-and-output-weights --disable-bias-linear \
    --micro-batch-size 1 --global-batch-size 128 \
    --lr 0.00015 --min-lr 0.00001 --lr-decay-style cosine --clip-grad 1.0 --weight-decay 0.1 \
    --bf16 --grad-reduce-in-bf16 --cross-entropy-loss-fusion \
    "--fp8-format hybrid" "--fp8-amax-history-len 1024" "--fp8-amax-compute-algo max" "--fp8-param-gather" \
    --tensor-model-parallel-size 1 --context-parallel-size 1 --sequence-parallel \
    --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \
    --mock-data --tokenizer-type NullTokenizer --vocab-size 128256 --split '99,1,0' \
    --log-interval 1 --eval-iters 32 --eval-interval 100 --save-interval 1000
