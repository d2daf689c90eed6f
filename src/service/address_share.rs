//! The share of the server's places one client address may hold when no tenant is
//! known (a call without an API key or a client certificate): so that one peer, over
//! as many connections as it likes, never takes every place. IPv6 addresses are
//! counted by their /64 network, which one host usually holds whole.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The places each client address holds, under a share.
#[derive(Debug)]
pub struct AddressShares {
    share: usize,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One place of a client address, given back when dropped.
#[derive(Debug)]
pub struct AddressPlace {
    address: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl AddressShares {
    /// At most `share` places per address.
    pub fn new(share: usize) -> AddressShares {
        AddressShares { share: share.max(1), held: Arc::default() }
    }

    /// A place for `address`, unless it holds its share already.
    pub fn take(&self, address: IpAddr) -> Option<AddressPlace> {
        let address = network_of(address);
        let mut held = self.held.lock().ok()?;
        let count = held.entry(address).or_insert(0);
        if *count >= self.share {
            return None;
        }
        *count += 1;
        Some(AddressPlace { address, held: self.held.clone() })
    }

    /// The share of each address.
    pub fn share(&self) -> usize {
        self.share
    }
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let Ok(mut held) = self.held.lock() else { return };
        if let Some(count) = held.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                // No entry outlives its places: no client grows the map.
                held.remove(&self.address);
            }
        }
    }
}

/// The address an address is counted under: an IPv4 address (mapped or not) as it
/// is, an IPv6 address by its /64 network.
fn network_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_share_and_gets_places_back() {
        let shares = AddressShares::new(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let (first, _second) = (shares.take(a).unwrap(), shares.take(a).unwrap());
        assert!(shares.take(a).is_none());
        assert!(shares.take("10.0.0.2".parse().unwrap()).is_some(), "another address has its own share");
        drop(first);
        assert!(shares.take(a).is_some());
    }

    #[test]
    fn ipv6_hosts_count_by_their_network_and_the_map_empties() {
        let shares = AddressShares::new(1);
        let _one = shares.take("2001:db8::1".parse().unwrap()).unwrap();
        assert!(shares.take("2001:db8::ffff:2".parse().unwrap()).is_none(), "same /64");
        assert!(shares.take("2001:db8:0:1::1".parse().unwrap()).is_some(), "another /64");
        let mapped = shares.take("::ffff:10.0.0.1".parse().unwrap()).unwrap();
        assert!(shares.take("10.0.0.1".parse().unwrap()).is_none(), "a mapped address is its IPv4 address");
        drop(mapped);
        drop(_one);
        assert_eq!(shares.held.lock().unwrap().len(), 0);
    }
}
