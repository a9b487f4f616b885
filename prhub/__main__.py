"""``python -m prhub`` runs the CLI."""

from prhub.cli import main

main()
