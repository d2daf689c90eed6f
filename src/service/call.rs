//! What a call carries in its request's extensions from one layer to the next: who it
//! is for (the tenant, a client certificate's name) and its place among the calls the
//! server serves at once. The connection, the admission layer and the API key layer
//! each read or fill them, and none of them needs another's module for it.

use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::OwnedSemaphorePermit;

use super::address_share::AddressPlace;

/// The tenant of a call, in its request's extensions once its key is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant(pub Arc<str>);

/// The common name of the subject of a connection's client certificate (mutual TLS),
/// in the extensions of each of its requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientName(pub Arc<str>);

/// Where the API key layer (inside the admission layer) names a call's tenant, for its
/// audit line.
#[derive(Clone, Default)]
pub struct CallTenant(Arc<OnceLock<Tenant>>);

impl CallTenant {
    /// Names the call's tenant (the first name given stays).
    pub fn set(&self, tenant: Tenant) {
        let _ = self.0.set(tenant);
    }

    /// The call's tenant, once named.
    pub fn get(&self) -> Option<&Tenant> {
        self.0.get()
    }
}

/// What a call's place holds: a permit of the server's places, and one of its client
/// address's places when the address is held to a share.
pub type Place = (OwnedSemaphorePermit, Option<AddressPlace>);

/// A call's place among the calls the server serves at once, which a layer inside the
/// admission layer may give up early: a refusal held back over a tenant's quota waits
/// without one, and so does a response given up for want of flow-control window.
#[derive(Clone, Default)]
pub struct CallPlace(Arc<Mutex<Option<Place>>>);

impl CallPlace {
    /// Gives the call its place.
    pub fn hold(&self, place: Place) {
        if let Ok(mut held) = self.0.lock() {
            *held = Some(place);
        }
    }

    /// Gives the call's place to another call.
    pub fn give_up(&self) {
        if let Ok(mut place) = self.0.lock() {
            place.take();
        }
    }
}
