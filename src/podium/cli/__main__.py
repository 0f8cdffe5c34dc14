"""`python -m podium.cli`: the same as the `podium` command."""

from podium.cli import main

main()
