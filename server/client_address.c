/*
 * Client addresses grouped for limits (client_address.h).
 */
#include "client_address.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define PREFIX_BYTES 8 /* a /64 */

void client_address_group(const char *address, char group[CLIENT_GROUP_MAX])
{
    struct in6_addr a;
    char text[INET6_ADDRSTRLEN];
    snprintf(group, CLIENT_GROUP_MAX, "%s", address);
    if (inet_pton(AF_INET6, address, &a) != 1)
        return; /* IPv4, or no address */
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        inet_ntop(AF_INET, &a.s6_addr[12], group, CLIENT_GROUP_MAX);
        return;
    }
    memset(&a.s6_addr[PREFIX_BYTES], 0, sizeof a.s6_addr - PREFIX_BYTES);
    inet_ntop(AF_INET6, &a, text, sizeof text);
    snprintf(group, CLIENT_GROUP_MAX, "%s/64", text);
}
