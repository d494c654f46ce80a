"""``python -m tcplab``: the same as the ``tcplab`` command."""

from tcplab.cli import main

if __name__ == "__main__":
    main()
