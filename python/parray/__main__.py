"""python -m parray: what this package was built with and which backends are on."""
import parray

info = parray.build_info()
print("parray %s (package %s) from %s" % (info.pop("version"), parray.__version__, info.pop("library")))
print("built with: " + ", ".join("%s %s" % (k, "yes" if v else "no") for k, v in info.items()))
print("backends on here: " + ", ".join(k for k, v in parray.backends().items() if v))
