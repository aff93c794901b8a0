/*
 * Internal to server/: the address a client's limits are counted under.
 * An IPv4 client is its address. An IPv6 client is its /64: a host is
 * given a whole /64 (SLAAC, privacy addresses), so one attacker holds 2^64
 * addresses of it and counting each apart would limit nothing. An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d, an IPv4 client of a dual-stack
 * socket) is its IPv4 address.
 */
#ifndef KGRADE_SERVER_CLIENT_ADDRESS_H
#define KGRADE_SERVER_CLIENT_ADDRESS_H

#define CLIENT_GROUP_MAX 64 /* "ffff:ffff:ffff:ffff::/64" and its NUL fit */

/* The group of `address` (the text inet_ntop wrote): "192.0.2.7",
 * "2001:db8:1:2::/64"; text that is no address is kept as it is. */
void client_address_group(const char *address, char group[CLIENT_GROUP_MAX]);

#endif
