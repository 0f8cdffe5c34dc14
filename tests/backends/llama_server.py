"""Runs llama-cpp-python's own OpenAI-compatible server (llama_cpp.server) unchanged, with llama.cpp's
weight repacking ("extra buffer types") switched off first, the equivalent of llama.cpp's --no-repack.

Why: on CPUs that report AMX but run under a hypervisor that does not let a process use it (this
project's machines), the repacked AMX kernels die of SIGILL. The embedded backend makes the same choice
(EmbeddedBackend(repack=False) by default).
"""

from __future__ import annotations

import runpy

import llama_cpp.llama_cpp as native

_defaults = native.llama_model_default_params


def _no_repack():  # type: ignore[no-untyped-def]
    params = _defaults()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = _no_repack

if __name__ == "__main__":
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
