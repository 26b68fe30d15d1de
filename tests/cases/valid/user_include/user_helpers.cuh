// user_helpers.cuh: a header that tests/cases/valid/user_every_key.cu includes from an
// include_dirs folder, so the kernel hash follows the files a kernel includes.
template <typename T> __device__ T twice(T v) { return v + v; }
