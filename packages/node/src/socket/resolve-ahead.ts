import { ADDRCONFIG, lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";

/**
 * Starts resolving `host` now and returns a `lookup` (the option of `net.connect` and
 * `http.request`) that answers for `host` from that resolution and passes every other name, or a
 * failed resolution, to `dns.lookup`. The subprocess transport resolves `localhost` while the
 * harness boots, so the socket it opens after the handshake (protocol §4) does not wait for the
 * resolver: `getaddrinfo` runs in libuv's thread pool and took 2–3 ms a call, 10 ms the first, on
 * a 2-core Linux machine. Same query as `net.connect` makes (all addresses, `ADDRCONFIG`, the
 * process's default result order), so the socket reaches the same addresses in the same order.
 */
export function resolveAhead(host: string): LookupFunction {
  const resolved = new Promise<LookupAddress[] | undefined>((resolve) => {
    dnsLookup(host, { all: true, hints: ADDRCONFIG }, (error, addresses) =>
      resolve(error === null && addresses.length > 0 ? addresses : undefined),
    );
  });
  return (hostname, options, callback) => {
    if (hostname !== host) return dnsLookup(hostname, options, callback);
    const family = familyNumber(options.family);
    void resolved.then((all) => {
      const addresses = family === 0 ? all : all?.filter((address) => address.family === family);
      const first = addresses?.[0];
      if (addresses === undefined || first === undefined) dnsLookup(hostname, options, callback);
      else if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function familyNumber(family: number | "IPv4" | "IPv6" | undefined): 0 | 4 | 6 {
  if (family === 4 || family === "IPv4") return 4;
  return family === 6 || family === "IPv6" ? 6 : 0;
}
