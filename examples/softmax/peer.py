"""peer.py: what softmax.yaml's kernel is compared with: torch.softmax over the last dimension of
a row-major rows x cols tensor of the dtype (f32 or f16; PyTorch also computes in float and
rounds the output to the dtype). Inputs uniform in [-2, 2], as the space's."""


def peer(problem, dtype):
    import torch
    types = {"f32": torch.float32, "f16": torch.float16}
    if dtype not in types:
        raise ValueError(f"softmax peer: f32 or f16, not {dtype}")
    x = torch.empty(problem["rows"], problem["cols"], device="cuda").uniform_(-2, 2).to(types[dtype])
    return "torch.softmax", lambda: torch.softmax(x, dim=-1)
