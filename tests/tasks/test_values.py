"""Values compared as a person reads them."""

from __future__ import annotations

import datetime

from bench.tasks.values import same


def test_a_date_cell_reads_as_the_date_written_in_a_document() -> None:
    assert same(datetime.datetime(2024, 5, 2), "2024-05-02") and same(datetime.date(2024, 5, 2), " 2024-05-02")
    assert not same(datetime.datetime(2024, 5, 2, 9, 30), "2024-05-02")
    assert not same(datetime.datetime(2024, 5, 3), "2024-05-02")
