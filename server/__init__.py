"""Kriegsspiel: the umpired wargame server (see ../DESIGN and docs/)."""
