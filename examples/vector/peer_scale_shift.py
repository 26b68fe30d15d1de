# peer_scale_shift.py: what a PyTorch user writes for scale_shift.yaml's kernel, y = x * s + t
# into a preallocated y (torch.mul then add_, two passes), timed by scripts/peers.py.
import torch

TYPES = {"f32": torch.float32, "f16": torch.float16}


def peer(problem, dtype):
    n = problem["n"]
    x = torch.empty(n, device="cuda", dtype=TYPES[dtype]).uniform_(-4, 4)
    y = torch.empty_like(x)
    return "torch.mul(out=y).add_", lambda: torch.mul(x, 0.75, out=y).add_(0.5)
