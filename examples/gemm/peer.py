"""peer.py: what sgemm.yaml's kernel is compared with: cuBLAS SGEMM through torch.matmul on
row-major f32 matrices, A (M x K) times B (K x N) into a preallocated C, with TF32 off (true
FP32 arithmetic, as sgemm.cu does). scripts/peers.py and bench/examples_dev.py time the returned
call; inputs are uniform in [-1, 1], as the space's."""


def peer(problem, dtype):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    if dtype != "f32":
        raise ValueError(f"gemm peer: only f32, not {dtype}")
    m, n, k = problem["M"], problem["N"], problem["K"]
    a = torch.empty(m, k, device="cuda").uniform_(-1, 1)
    b = torch.empty(k, n, device="cuda").uniform_(-1, 1)
    c = torch.empty(m, n, device="cuda")
    return "torch.matmul (cuBLAS, TF32 off)", lambda: torch.matmul(a, b, out=c)
