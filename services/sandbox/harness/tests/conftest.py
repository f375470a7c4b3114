import os
import sys

# The package lives beside this folder; the sandbox puts the same folder on sys.path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
