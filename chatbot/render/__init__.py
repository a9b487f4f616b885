"""Text renderers of the digest (Markdown; later HTML): templates receive only the DigestText."""
