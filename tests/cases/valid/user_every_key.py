# user_every_key.py: the peer of tests/cases/valid/user_every_key.yaml (only its existence is
# checked by the CPU tests): times torch's equivalent for scripts/peers.py.
def peer(problem, dtype):
    import torch
    n = problem["n"]
    t = {"f32": torch.float32, "f16": torch.float16}[dtype]
    x = torch.randn(n, device="cuda", dtype=t)
    idx = torch.randint(0, n, (n,), device="cuda")
    return "torch.index_select", lambda: (x.index_select(0, idx) * 0.5) * 2
