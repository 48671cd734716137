"""The few server changes the web client needs (issue 16), each tested over the real protocol."""
