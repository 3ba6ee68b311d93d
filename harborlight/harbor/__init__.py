"""The Harbor side: the `harbor run --plugin harborlight` plugin, its sender, and the harness helper."""
