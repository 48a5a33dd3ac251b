"""Generated protocol stubs (do not edit; see referee/protogen.py)."""
