/* worker.h: the worker process that owns one GPU (`tuner __worker ORDINAL`). It speaks the
 * protocol of protocol.h with the parent (tuner/backend/backend_cuda.c) over stdin and stdout. */
#pragma once

/* ---- the worker process ---- */
/* Runs the worker on CUDA device ordinal, reading requests from stdin and answering on stdout,
 * until `quit` or end of input. Returns the process exit status: 0 after quit / end of input,
 * 2 when the device cannot be opened (after sending `error`), 3 after a variant lost the CUDA
 * context (after sending its `result status=fault`), 4 on a broken pipe or out of memory.
 * main.c calls it for `tuner __worker ORDINAL` and exits with what it returns. */
int worker_main(int ordinal);
