"""One lock for every use of python-docx in the process.

python-docx parses and builds every document with a single lxml parser held by its own module, and lxml
releases the GIL while it parses: that parser used from two threads at once (a tool's worker thread
saving one document while the event loop reads another, to measure what a call changed) can write a
document whose XML names a corrupted namespace. Whoever opens, changes or saves a document with
python-docx holds `LOCK` for the whole of it; a document is never shared between two holders.
"""

from __future__ import annotations

import threading

LOCK = threading.RLock()
