"""``python -m shell_envs.cli``: the ``shell-envs`` command line without its script."""

from shell_envs.cli import main

if __name__ == "__main__":
    main()
