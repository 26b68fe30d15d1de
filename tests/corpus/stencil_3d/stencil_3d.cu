// stencil_3d.cu: one Jacobi step of the 3-D heat equation on an nx x ny x nz grid (x fastest), the
// 7-point stencil out = c0 * u + c1 * (sum of the six neighbours), neighbours clamped at the
// faces. One thread per point, 3-D blocks sized by the caller:
//
//   dim3 block(BX, BY, BZ);
//   dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, (nz + BZ - 1) / BZ);
//   heat_step<<<grid, block>>>(d_out, d_u, nx, ny, nz, c0, c1);

#define IDX(i, j, k) (((size_t)(k) * ny + (j)) * nx + (i))

__global__ void heat_step(float *__restrict__ out, const float *__restrict__ u, int nx, int ny, int nz,
                          float c0, float c1)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz)
        return;

    const int im = i > 0 ? i - 1 : i, ip = i < nx - 1 ? i + 1 : i;
    const int jm = j > 0 ? j - 1 : j, jp = j < ny - 1 ? j + 1 : j;
    const int km = k > 0 ? k - 1 : k, kp = k < nz - 1 ? k + 1 : k;

    const float nb = u[IDX(im, j, k)] + u[IDX(ip, j, k)] + u[IDX(i, jm, k)] + u[IDX(i, jp, k)] +
                     u[IDX(i, j, km)] + u[IDX(i, j, kp)];
    out[IDX(i, j, k)] = c0 * u[IDX(i, j, k)] + c1 * nb;
}
