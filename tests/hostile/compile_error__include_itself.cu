// Includes itself, endlessly, by the name it was submitted under.
#include __FILE__
