"""`python -m fsguard` runs the command-line entry point."""

from fsguard.cli import main

if __name__ == "__main__":
    main()
