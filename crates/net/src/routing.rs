//! Static routing: shortest paths in hops with ties broken by the lowest link
//! id, and explicit entries that override them, in memory and time that grow
//! with the links and the destinations traffic uses rather than with the
//! square of the nodes.
//!
//! The routes are those of a reverse breadth-first search from each
//! destination `d` over the links `from -> to` (incoming links scanned in id
//! order), in which only `d` itself and routers propagate: the first time a
//! node is reached, the link it was reached by is its route towards `d`.
//! [`reference_routes`] keeps that search, one per node, as the oracle of the
//! tests. Three facts about it make the compact form below give exactly the
//! same answer for every pair:
//!
//! - **Hosts behind one router share its column.** A host `h` whose only
//!   incoming link comes from router `r` (an access link) is searched from:
//!   `h` reaches `r` first and then the search goes on exactly as one from
//!   `r` would (`h` itself, a host, never propagates in the search from `r`),
//!   so `route(x, h) == route(x, r)` for every `x` other than `h` and `r`,
//!   and `route(r, h)` is the link `r -> h`. A column (one search) per such
//!   anchor router, plus one per other destination, is enough: two for a
//!   dumbbell, one per edge switch for a fat tree.
//! - **Only nodes with a choice need a row.** A host with one outgoing link
//!   to a router `v` uses it towards `d` exactly when the search from `d`
//!   reaches `v` and `v` propagates: `v` is the search's root or has a route
//!   itself (read from `v`'s row). A host whose one link goes to another
//!   host uses it only towards that host; a host without links has no route.
//!   Routers, and hosts with several outgoing links, get a row.
//! - **Explicit entries are an overlay.** The search does not depend on them
//!   (it goes through a node with an explicit entry as through any other), so
//!   they are kept apart and win over the searched route; only nodes with an
//!   explicit entry pay for looking them up.
//!
//! Columns exist for the destinations asked for (hosts and the destinations
//! of explicit entries: no packet is addressed to a router); routes towards
//! other nodes are `None`.

use crate::network::NodeKind;
use crate::{LinkId, NodeId};
use std::collections::{BTreeMap, VecDeque};

/// No link.
pub(crate) const NO_ROUTE: LinkId = LinkId::MAX;
const NO_COL: u32 = u32::MAX;
const NO_NODE: NodeId = NodeId::MAX;

/// How a node finds its next hop: from its row of the table.
const KIND_ROW: u8 = 0;
/// Its one link, towards destinations its neighbour router reaches.
const KIND_VIA: u8 = 1;
/// Its one link, to a host: towards that host only.
const KIND_TO_HOST: u8 = 2;
/// No link out.
const KIND_NONE: u8 = 3;

/// The node has explicit entries (as the node a packet is at).
const FLAG_EXPLICIT_FROM: u8 = 1;
/// Explicit entries lead towards the node.
const FLAG_EXPLICIT_TO: u8 = 2;

#[derive(Clone, Copy, Debug)]
struct Hop {
    kind: u8,
    flags: u8,
    /// Its row (`KIND_ROW`), or its neighbour's (`KIND_VIA`).
    row: u32,
    /// The neighbour (`KIND_VIA`, `KIND_TO_HOST`).
    next: NodeId,
    /// The one outgoing link (`KIND_VIA`, `KIND_TO_HOST`).
    out: LinkId,
}

impl Hop {
    /// `KIND_ROW` or `KIND_VIA` and no explicit entry: [`Routing::route`]'s fast path.
    #[inline(always)]
    fn is_fast(&self) -> bool {
        self.kind <= KIND_VIA && self.flags & FLAG_EXPLICIT_FROM == 0
    }
}

#[derive(Clone, Copy, Debug)]
struct Dst {
    /// Where its column starts in the table (the last column, empty, when no
    /// routes are kept towards this node).
    base: usize,
    /// The column's root: the node itself, or the router it hangs from
    /// (`NO_NODE`: no routes kept towards this node).
    root: NodeId,
    /// The link from `root` to the node when they differ.
    anchor_link: LinkId,
}

/// Why [`Routing::path`] found no path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// This node has no route onward.
    NoRoute(NodeId),
    /// The routes loop; this node is on the loop.
    Loop(NodeId),
    /// The routes lead into this host, which does not forward.
    ThroughHost(NodeId),
}

/// The routes of a network (see the module header).
#[derive(Clone, Debug)]
pub struct Routing {
    kinds: Vec<NodeKind>,
    /// Every link's `(from, to)` when the routes were computed.
    ends: Vec<(NodeId, NodeId)>,
    hops: Vec<Hop>,
    dsts: Vec<Dst>,
    /// Nodes with a row.
    rows: usize,
    /// Columns (one search each).
    cols: usize,
    /// `table[col * rows + row]`: the link a node sends on towards a column's
    /// root; one more column, all `NO_ROUTE`, for the other destinations.
    table: Vec<LinkId>,
    /// Explicit entries: (node, destination) -> link.
    explicit: BTreeMap<(NodeId, NodeId), LinkId>,
}

/// The size of a routing table: nodes with a row, and columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutingSize {
    /// Nodes that need a row (routers, hosts with several links out).
    pub rows: usize,
    /// Searches, one per distinct root among the destinations.
    pub cols: usize,
}

impl RoutingSize {
    /// Bytes the routing holds for `nodes` nodes and `explicit` explicit entries.
    pub fn bytes(&self, nodes: usize, explicit: usize) -> u64 {
        (self.rows as u64 * (self.cols as u64 + 1)) * 4
            + nodes as u64 * (std::mem::size_of::<Hop>() + std::mem::size_of::<Dst>() + 1) as u64
            + explicit as u64 * 48
    }
}

impl Routing {
    /// No routes yet among nodes of these kinds.
    pub fn new(kinds: &[NodeKind]) -> Self {
        let n = kinds.len();
        Routing {
            kinds: kinds.to_vec(),
            ends: Vec::new(),
            hops: vec![
                Hop {
                    kind: KIND_NONE,
                    flags: 0,
                    row: 0,
                    next: NO_NODE,
                    out: NO_ROUTE
                };
                n
            ],
            dsts: vec![
                Dst {
                    base: 0,
                    root: NO_NODE,
                    anchor_link: NO_ROUTE
                };
                n
            ],
            rows: 0,
            cols: 0,
            table: Vec::new(),
            explicit: BTreeMap::new(),
        }
    }

    /// At `node`, send packets for `dst` on `link`, whatever the search says.
    pub fn set_explicit(&mut self, node: NodeId, dst: NodeId, link: LinkId) {
        self.explicit.insert((node, dst), link);
        self.hops[node as usize].flags |= FLAG_EXPLICIT_FROM;
        self.hops[dst as usize].flags |= FLAG_EXPLICIT_TO;
    }

    /// The destinations of the explicit entries, in order.
    pub fn explicit_destinations(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.explicit.keys().map(|&(_, d)| d)
    }

    /// The link `node` uses towards `dst`, if any.
    #[inline(always)]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        // The packet path: a router or a host with one link to a router,
        // towards another node; the rest (explicit entries, hosts linked to
        // hosts or to nothing, a node asking for itself) takes the slow path.
        let h = &self.hops[node as usize];
        if !h.is_fast() || node == dst {
            return self.route_slow(node, dst);
        }
        let d = &self.dsts[dst as usize];
        if node == d.root {
            // `dst` hangs from `node` (were `node` its own root, node == dst).
            return Some(d.anchor_link);
        }
        let e = self.table[d.base + h.row as usize];
        if h.kind == KIND_ROW {
            (e != NO_ROUTE).then_some(e)
        } else {
            // The neighbour router propagates: it is the root or was reached.
            (h.next == d.root || e != NO_ROUTE).then_some(h.out)
        }
    }

    #[cold]
    #[inline(never)]
    fn route_slow(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        let h = self.hops[node as usize];
        if h.flags & FLAG_EXPLICIT_FROM != 0 {
            if let Some(&l) = self.explicit.get(&(node, dst)) {
                return Some(l);
            }
        }
        let d = self.dsts[dst as usize];
        if node == dst || d.root == NO_NODE {
            return None;
        }
        if node == d.root {
            return Some(d.anchor_link);
        }
        let entry = || self.table[d.base + h.row as usize];
        let l = match h.kind {
            KIND_ROW => entry(),
            KIND_VIA if h.next == d.root || entry() != NO_ROUTE => h.out,
            KIND_TO_HOST if h.next == dst => h.out,
            _ => NO_ROUTE,
        };
        (l != NO_ROUTE).then_some(l)
    }

    /// The rows and columns [`Routing::compute`] would build for these nodes,
    /// links (`(from, to)` in id order) and destinations, without searching:
    /// O(nodes + links).
    pub fn size(kinds: &[NodeKind], links: &[(NodeId, NodeId)], dsts: &[NodeId]) -> RoutingSize {
        let mut r = Routing::new(kinds);
        r.plan(links, dsts);
        RoutingSize {
            rows: r.rows,
            cols: r.cols,
        }
    }

    /// Classify the nodes and destinations (rows, columns), keeping the
    /// explicit flags.
    fn plan(&mut self, links: &[(NodeId, NodeId)], dsts: &[NodeId]) -> Vec<NodeId> {
        let kinds = &self.kinds;
        let n = kinds.len();
        let mut out_deg = vec![0u32; n];
        let mut out_link = vec![NO_ROUTE; n];
        let mut in_deg = vec![0u32; n];
        let mut in_link = vec![NO_ROUTE; n];
        for (i, &(from, to)) in links.iter().enumerate() {
            out_deg[from as usize] += 1;
            out_link[from as usize] = i as LinkId;
            in_deg[to as usize] += 1;
            in_link[to as usize] = i as LinkId;
        }
        let mut row = vec![0u32; n];
        let mut rows = 0u32;
        for u in 0..n {
            if kinds[u] == NodeKind::Router || out_deg[u] >= 2 {
                row[u] = rows;
                rows += 1;
            }
        }
        for (u, hop) in self.hops.iter_mut().enumerate() {
            let (kind, next, out) = if kinds[u] == NodeKind::Router || out_deg[u] >= 2 {
                (KIND_ROW, NO_NODE, NO_ROUTE)
            } else if out_deg[u] == 1 {
                let l = out_link[u];
                let v = links[l as usize].1;
                if kinds[v as usize] == NodeKind::Router {
                    (KIND_VIA, v, l)
                } else {
                    (KIND_TO_HOST, v, l)
                }
            } else {
                (KIND_NONE, NO_NODE, NO_ROUTE)
            };
            let r = match kind {
                KIND_ROW => row[u],
                KIND_VIA => row[next as usize],
                _ => 0,
            };
            *hop = Hop {
                kind,
                flags: hop.flags,
                row: r,
                next,
                out,
            };
        }
        self.rows = rows as usize;
        // Columns: one per distinct root, in order of first appearance.
        let mut col_of_root: Vec<u32> = vec![NO_COL; n];
        let mut roots = Vec::new();
        for d in &mut self.dsts {
            d.root = NO_NODE;
        }
        for &dst in dsts {
            let di = dst as usize;
            if self.dsts[di].root != NO_NODE {
                continue;
            }
            let l = in_link[di];
            let anchored = kinds[di] == NodeKind::Host
                && in_deg[di] == 1
                && kinds[links[l as usize].0 as usize] == NodeKind::Router
                && links[l as usize].0 != dst;
            let (root, anchor_link) = if anchored {
                (links[l as usize].0, l)
            } else {
                (dst, NO_ROUTE)
            };
            if col_of_root[root as usize] == NO_COL {
                col_of_root[root as usize] = roots.len() as u32;
                roots.push(root);
            }
            self.dsts[di] = Dst {
                base: col_of_root[root as usize] as usize,
                root,
                anchor_link,
            };
        }
        self.cols = roots.len();
        for d in &mut self.dsts {
            // Column index to start of the column (the last column: empty).
            d.base = if d.root == NO_NODE { self.cols } else { d.base } * self.rows;
        }
        roots
    }

    /// Search the routes towards `dsts` (each destination once; see the
    /// module header), keeping the explicit entries. Time
    /// O(columns x (rows + links between nodes with rows)), memory
    /// O(nodes + links + rows x columns).
    pub fn compute(&mut self, links: &[(NodeId, NodeId)], dsts: &[NodeId]) {
        let n = self.kinds.len();
        let roots = self.plan(links, dsts);
        self.ends = links.to_vec();
        let kinds = &self.kinds;
        // Incoming links from nodes with a row, per node, in id order: only
        // those nodes are recorded or propagate (a host without a row is never
        // a root here, and other hosts do not propagate).
        let mut start = vec![0u32; n + 1];
        for &(from, to) in links {
            if self.hops[from as usize].kind == KIND_ROW {
                start[to as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut incoming = vec![0 as LinkId; start[n] as usize];
        for (i, &(from, to)) in links.iter().enumerate() {
            if self.hops[from as usize].kind == KIND_ROW {
                incoming[fill[to as usize] as usize] = i as LinkId;
                fill[to as usize] += 1;
            }
        }
        drop(fill);
        self.table = vec![NO_ROUTE; self.rows * (self.cols + 1)];
        let mut seen = vec![u32::MAX; n];
        let mut queue: Vec<NodeId> = Vec::with_capacity(self.rows + 1);
        for (c, &root) in roots.iter().enumerate() {
            let mark = c as u32;
            let base = c * self.rows;
            seen[root as usize] = mark;
            queue.clear();
            queue.push(root);
            let mut i = 0;
            while i < queue.len() {
                let v = queue[i] as usize;
                i += 1;
                if v != root as usize && kinds[v] == NodeKind::Host {
                    continue;
                }
                for &l in &incoming[start[v] as usize..start[v + 1] as usize] {
                    let u = links[l as usize].0 as usize;
                    if seen[u] != mark {
                        seen[u] = mark;
                        self.table[base + self.hops[u].row as usize] = l;
                        queue.push(u as NodeId);
                    }
                }
            }
        }
    }

    /// The links from `from` to `to` along the routes, over the links the
    /// routes were computed for.
    pub fn path(&self, from: NodeId, to: NodeId) -> Result<Vec<LinkId>, PathError> {
        self.walk(from, to, |l| self.ends[l as usize].1)
    }

    /// The links from `from` to `to` along the routes, `next(l)` being the
    /// node link `l` leads to.
    pub fn walk(
        &self,
        from: NodeId,
        to: NodeId,
        next: impl Fn(LinkId) -> NodeId,
    ) -> Result<Vec<LinkId>, PathError> {
        let mut links = Vec::new();
        let mut node = from;
        while node != to {
            let l = self.route(node, to).ok_or(PathError::NoRoute(node))?;
            links.push(l);
            if links.len() > self.kinds.len() {
                return Err(PathError::Loop(node));
            }
            node = next(l);
            if node != to && self.kinds[node as usize] == NodeKind::Host {
                return Err(PathError::ThroughHost(node));
            }
        }
        Ok(links)
    }

    /// Two hosts with the same source class (and no explicit entries) have
    /// the same routes as sources but for their first link: a host whose one
    /// link goes to a router is in that router's class, any other node in its own.
    pub fn source_class(&self, node: NodeId) -> NodeId {
        let h = self.hops[node as usize];
        if h.kind == KIND_VIA && h.flags & FLAG_EXPLICIT_FROM == 0 {
            h.next
        } else {
            node
        }
    }

    /// Two hosts with the same destination class have the same routes towards
    /// them but for their last link: a host hanging from a router (and no
    /// explicit entry towards it) is in that router's class, any other node in its own.
    pub fn dest_class(&self, node: NodeId) -> NodeId {
        let d = self.dsts[node as usize];
        if d.root != NO_NODE
            && d.root != node
            && self.hops[node as usize].flags & FLAG_EXPLICIT_TO == 0
        {
            d.root
        } else {
            node
        }
    }

    /// How many links the routes were computed over.
    pub fn link_count(&self) -> usize {
        self.ends.len()
    }

    /// Nodes with a row and columns.
    pub fn dimensions(&self) -> RoutingSize {
        RoutingSize {
            rows: self.rows,
            cols: self.cols,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.dimensions()
            .bytes(self.hops.len(), self.explicit.len())
    }
}

/// The routes as the original n x n table computed them, one reverse
/// breadth-first search per node (`routes[node * n + dst]`), with the explicit
/// entries written over them: the oracle [`Routing`] is checked against.
pub fn reference_routes(
    kinds: &[NodeKind],
    links: &[(NodeId, NodeId)],
    explicit: &[(NodeId, NodeId, LinkId)],
) -> Vec<Option<LinkId>> {
    let n = kinds.len();
    let mut routes = vec![NO_ROUTE; n * n];
    for &(node, dst, l) in explicit {
        routes[node as usize * n + dst as usize] = l;
    }
    let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
    for (i, &(_, to)) in links.iter().enumerate() {
        incoming[to as usize].push(i as LinkId);
    }
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for dst in 0..n {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst] = 0;
        queue.clear();
        queue.push_back(dst);
        while let Some(v) = queue.pop_front() {
            if v != dst && kinds[v] == NodeKind::Host {
                continue;
            }
            for &l in &incoming[v] {
                let u = links[l as usize].0 as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    if routes[u * n + dst] == NO_ROUTE {
                        routes[u * n + dst] = l;
                    }
                    queue.push_back(u);
                }
            }
        }
    }
    routes
        .into_iter()
        .map(|l| (l != NO_ROUTE).then_some(l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use NodeKind::{Host, Router};

    /// A topology: node kinds, links `(from, to)` in id order, explicit entries.
    type Topo = (
        Vec<NodeKind>,
        Vec<(NodeId, NodeId)>,
        Vec<(NodeId, NodeId, LinkId)>,
    );

    fn routing(
        kinds: &[NodeKind],
        links: &[(NodeId, NodeId)],
        explicit: &[(NodeId, NodeId, LinkId)],
        dsts: &[NodeId],
    ) -> Routing {
        let mut r = Routing::new(kinds);
        for &(node, dst, l) in explicit {
            r.set_explicit(node, dst, l);
        }
        r.compute(links, dsts);
        r
    }

    /// Every pair: the compact routing towards every node against the oracle;
    /// towards hosts and explicit destinations only, None elsewhere.
    fn check_against_oracle((kinds, links, explicit): &Topo) -> Result<(), TestCaseError> {
        let n = kinds.len();
        let oracle = reference_routes(kinds, links, explicit);
        let all: Vec<NodeId> = (0..n as NodeId).collect();
        let full = routing(kinds, links, explicit, &all);
        let mut used: Vec<NodeId> = all
            .iter()
            .copied()
            .filter(|&d| kinds[d as usize] == Host)
            .collect();
        used.extend(explicit.iter().map(|e| e.1));
        let part = routing(kinds, links, explicit, &used);
        for u in 0..n as NodeId {
            for d in 0..n as NodeId {
                let want = oracle[u as usize * n + d as usize];
                prop_assert_eq!(
                    full.route(u, d),
                    want,
                    "route({}, {}) towards every node",
                    u,
                    d
                );
                let want_part = if used.contains(&d) {
                    want
                } else {
                    explicit
                        .iter()
                        .rev()
                        .find(|e| e.0 == u && e.1 == d)
                        .map(|e| e.2)
                };
                prop_assert_eq!(
                    part.route(u, d),
                    want_part,
                    "route({}, {}) towards hosts",
                    u,
                    d
                );
            }
        }
        prop_assert_eq!(Routing::size(kinds, links, &all), full.dimensions());
        Ok(())
    }

    /// Random topologies: routers joined at random (some one way only,
    /// parallel links, self-loops), hosts on access links to one or two
    /// routers (some one way only), host-to-host links (chains), random
    /// extra links and explicit entries on random outgoing links.
    fn topo() -> impl Strategy<Value = Topo> {
        (1usize..8, 0usize..6)
            .prop_flat_map(|(hosts, routers)| {
                let n = hosts + routers;
                (
                    Just((hosts, routers)),
                    proptest::collection::vec((0..n, 0..n), 0..14),
                    proptest::collection::vec((0..hosts, 0..routers.max(1), 0u8..4), 0..12),
                    proptest::collection::vec((0..n, 0..n, 0usize..8), 0..5),
                )
            })
            .prop_map(|((hosts, routers), extra, access, explicit)| {
                let mut kinds = vec![Host; hosts];
                kinds.extend(std::iter::repeat_n(Router, routers));
                let mut links: Vec<(NodeId, NodeId)> = Vec::new();
                for (h, r, dir) in access {
                    if routers == 0 {
                        continue;
                    }
                    let (h, r) = (h as NodeId, (hosts + r) as NodeId);
                    // dir 0, 1: both ways (in either order); 2: up only; 3: down only.
                    match dir {
                        0 => links.extend([(h, r), (r, h)]),
                        1 => links.extend([(r, h), (h, r)]),
                        2 => links.push((h, r)),
                        _ => links.push((r, h)),
                    }
                }
                links.extend(extra.into_iter().map(|(a, b)| (a as NodeId, b as NodeId)));
                let explicit = explicit
                    .into_iter()
                    .filter_map(|(node, dst, k)| {
                        let outs: Vec<LinkId> = (0..links.len() as LinkId)
                            .filter(|&l| links[l as usize].0 == node as NodeId)
                            .collect();
                        (!outs.is_empty())
                            .then(|| (node as NodeId, dst as NodeId, outs[k % outs.len()]))
                    })
                    .collect();
                (kinds, links, explicit)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn routes_match_the_n_squared_search_on_random_topologies(t in topo()) {
            check_against_oracle(&t)?;
        }

        #[test]
        fn hosts_of_a_class_reach_the_same_places(t in topo()) {
            // Hosts a, a' of one source class and b, b' of one destination
            // class: a route from a to b exists exactly when one from a' to
            // b' does, and it takes the same links but for the first and last.
            let (kinds, links, explicit) = &t;
            let n = kinds.len();
            let hosts: Vec<NodeId> = (0..n as NodeId).filter(|&h| kinds[h as usize] == Host).collect();
            let r = routing(kinds, links, explicit, &hosts);
            let walk = |a: NodeId, b: NodeId| -> Option<Vec<LinkId>> {
                let mut path = vec![];
                let mut node = a;
                while node != b {
                    let l = r.route(node, b)?;
                    path.push(l);
                    node = links[l as usize].1;
                    if path.len() > n || (node != b && kinds[node as usize] == Host) {
                        return None;
                    }
                }
                Some(path)
            };
            for &a in &hosts { for &b in &hosts { for &a2 in &hosts { for &b2 in &hosts {
                if a == b || a2 == b2 || r.source_class(a) != r.source_class(a2) || r.dest_class(b) != r.dest_class(b2) {
                    continue;
                }
                let (p, p2) = (walk(a, b), walk(a2, b2));
                prop_assert_eq!(p.is_some(), p2.is_some(), "{}->{} vs {}->{}", a, b, a2, b2);
                if let (Some(p), Some(p2)) = (p, p2) {
                    let inner = |p: &[LinkId]| p[1.min(p.len())..p.len().saturating_sub(1).max(1.min(p.len()))].to_vec();
                    prop_assert_eq!(p.len(), p2.len());
                    prop_assert_eq!(inner(&p), inner(&p2));
                }
            }}}}
        }
    }

    /// A dumbbell: `pairs` hosts on each side of two routers.
    fn dumbbell(pairs: usize) -> Topo {
        let n = 2 * pairs + 2;
        let mut kinds = vec![Host; 2 * pairs];
        kinds.extend([Router, Router]);
        let (r1, r2) = ((n - 2) as NodeId, (n - 1) as NodeId);
        let mut links = vec![(r1, r2), (r2, r1)];
        for h in 0..2 * pairs {
            let r = if h < pairs { r1 } else { r2 };
            links.extend([(h as NodeId, r), (r, h as NodeId)]);
        }
        (kinds, links, vec![])
    }

    /// A k-ary fat tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge
    /// and k/2 aggregation switches, (k/2)^2 core switches, k/2 hosts per
    /// edge switch; hosts first.
    fn fat_tree(k: usize) -> Topo {
        let h = k * k * k / 4;
        let (edge0, agg0, core0) = (h, h + k * k / 2, h + k * k);
        let n = core0 + k * k / 4;
        let mut kinds = vec![Host; h];
        kinds.extend(std::iter::repeat_n(Router, n - h));
        let mut links = vec![];
        let mut duplex = |a: usize, b: usize| {
            links.extend([(a as NodeId, b as NodeId), (b as NodeId, a as NodeId)])
        };
        for p in 0..k {
            for e in 0..k / 2 {
                let edge = edge0 + p * k / 2 + e;
                for i in 0..k / 2 {
                    duplex((p * k / 2 + e) * k / 2 + i, edge);
                    duplex(edge, agg0 + p * k / 2 + i);
                }
            }
            for a in 0..k / 2 {
                for c in 0..k / 2 {
                    duplex(agg0 + p * k / 2 + a, core0 + a * k / 2 + c);
                }
            }
        }
        (kinds, links, vec![])
    }

    #[test]
    fn a_dumbbell_needs_two_columns_and_two_rows() {
        let t = dumbbell(50);
        check_against_oracle(&t).unwrap();
        let hosts: Vec<NodeId> = (0..100).collect();
        let r = routing(&t.0, &t.1, &[], &hosts);
        assert_eq!(r.dimensions(), RoutingSize { rows: 2, cols: 2 });
        // Host 0 (left) to host 99 (right): 0 -> r1 (link 2), r1 -> r2
        // (link 0), r2 -> 99 (link 2 + 2 * 99 + 1 = 201).
        assert_eq!(r.route(0, 99), Some(2));
        assert_eq!(r.route(100, 99), Some(0));
        assert_eq!(r.route(101, 99), Some(201));
        assert_eq!(r.route(99, 99), None);
    }

    #[test]
    fn a_fat_tree_needs_a_column_per_edge_switch_and_a_row_per_switch() {
        for k in [4, 6] {
            let t = fat_tree(k);
            check_against_oracle(&t).unwrap();
            let hosts: Vec<NodeId> = (0..(k * k * k / 4) as NodeId).collect();
            let r = routing(&t.0, &t.1, &[], &hosts);
            // 5k^2/4 switches, k^2/2 edge switches.
            assert_eq!(
                r.dimensions(),
                RoutingSize {
                    rows: 5 * k * k / 4,
                    cols: k * k / 2
                }
            );
        }
    }
}
