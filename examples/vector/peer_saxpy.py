# peer_saxpy.py: what a PyTorch user writes for saxpy.yaml's kernel, y = a * x + y in place
# (torch.add with alpha), timed by scripts/peers.py --space examples/vector/saxpy.yaml.
import torch


def peer(problem, dtype):
    n = problem["n"]
    y = torch.empty(n, device="cuda", dtype=torch.float32).uniform_(-1, 1)
    x = torch.empty(n, device="cuda", dtype=torch.float32).uniform_(-1, 1)
    return "torch.add(alpha=2.5, out=y)", lambda: torch.add(y, x, alpha=2.5, out=y)
