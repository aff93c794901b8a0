/*
 * The entry point of the `kgrade` binary; everything happens in kgrade_main().
 */
#include "server.h"

int main(int argc, char **argv)
{
    return kgrade_main(argc, argv);
}
