// The server's database: accounts, password hashes, every submission.
#include "@DATA@/kgrade.db"
