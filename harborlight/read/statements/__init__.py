"""The SQL the read path runs, and the loaders that turn its rows into the typed records derive/ takes."""
