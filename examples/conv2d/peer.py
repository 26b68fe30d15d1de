"""peer.py: what conv2d.yaml's kernel is compared with: torch.nn.functional.conv2d (cuDNN) on one
single-channel image, (1, 1, H + R - 1, W + R - 1) with a (1, 1, R, R) filter, no padding: the
same valid cross-correlation, H x W outputs, as conv2d.cu. TF32 off (true FP32, as conv2d.cu
does) and cudnn.benchmark on, so cuDNN picks its fastest algorithm during the warm-up. Inputs
are uniform in [-1, 1], as the space's."""


def peer(problem, dtype):
    import torch
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    if dtype != "f32":
        raise ValueError(f"conv2d peer: only f32, not {dtype}")
    h, w, r = problem["H"], problem["W"], problem["R"]
    x = torch.empty(1, 1, h + r - 1, w + r - 1, device="cuda").uniform_(-1, 1)
    f = torch.empty(1, 1, r, r, device="cuda").uniform_(-1, 1)
    return "torch.nn.functional.conv2d (cuDNN)", lambda: torch.nn.functional.conv2d(x, f)
