"""python-docx in one thread at a time, and a document never handed from one thread to another.

A document tree keeps state of the thread that parsed it (lxml: the dictionary of its names). A document
parsed on the event loop to measure a call's effects, then changed and saved by the call in a worker
thread while the event loop parsed other files, was saved once with a corrupted namespace name. So the
documents tools run on the event loop, where the shell's own reads of documents run too (a call's
effects, hollow parts, the report's diffs), and whoever uses python-docx holds `LOCK` for the whole of
it: a caller on another thread waits rather than share the library's state.
"""

from __future__ import annotations

import threading

LOCK = threading.RLock()
