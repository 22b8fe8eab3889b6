# scenarios/quickstart.yaml written as a Python dict (the tests hold the two to the same results).
QUICKSTART = {
    "name": "quickstart",
    "model": {"name": "resnet50", "batch_per_worker": 64, "dtype": "fp16", "grad_dtype": "fp32",
              "optimizer": "momentum"},
    "cluster": {
        "nodes": 2, "devices_per_node": 4, "device": "a100_40gb",
        "intra_node": {"kind": "nvlink", "rate": "300GB/s", "latency": "2us"},
        "nic": {"count": 1, "rate": "100Gbps", "latency": "5us"},
        "topology": {"kind": "star"},
    },
    "strategy": {"kind": "allreduce", "allreduce": {"algorithm": "ring", "bucket_size": "25MB", "overlap": True}},
    "run": {"iterations": 10, "warmup": 1},
}
