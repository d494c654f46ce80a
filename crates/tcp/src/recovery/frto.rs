//! F-RTO (RFC 5682, SACK-enhanced, section 3) as Linux 6.x does it
//! (net/ipv4/tcp_input.c `tcp_enter_loss` and `tcp_process_loss`, v6.12;
//! docs/dev/linux-tcp/prr-frto-undo.md section 4): after a timeout, the
//! first ACK that advances snd_una sends new data instead of more
//! retransmissions; then an ACK or SACK of a segment sent before the
//! timeout and never retransmitted shows the timeout was spurious, while a
//! SACK or a duplicate ACK shows the loss was real. The sender applies the
//! decision (undo, new data, or conventional recovery).

/// What one ACK in the Loss state means to F-RTO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frto {
    /// The timeout was spurious: undo it (`tcp_try_undo_loss(sk, true)`).
    Spurious,
    /// Step 2b: send new data now (`REXMIT_NEW`), and wait for the next ACK;
    /// `high_seq` moves to snd_max.
    SendNew,
    /// The loss was real (or no new data can go): recover conventionally.
    Real,
    /// Nothing to decide on this ACK.
    Wait,
}

/// The facts of one ACK in the Loss state.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossAck {
    /// It acknowledged or SACKed a segment below `high_seq` never
    /// retransmitted (`FLAG_ORIG_SACK_ACKED`).
    pub orig_delivered: bool,
    /// New data went out since the timeout (snd_nxt after `high_seq`).
    pub new_data_sent: bool,
    /// It SACKed new data (`FLAG_DATA_SACKED`).
    pub sacked: bool,
    /// It advanced snd_una (`FLAG_SND_UNA_ADVANCED`).
    pub advanced: bool,
    /// snd_una reached `high_seq`: the Loss state ends.
    pub recovered: bool,
    /// New data may be sent (the window and the application allow).
    pub room: bool,
}

/// `tcp_process_loss`'s F-RTO branch (after the timestamp/D-SACK undo the
/// caller tries first).
pub fn on_ack(a: LossAck) -> Frto {
    if a.orig_delivered {
        Frto::Spurious
    } else if a.new_data_sent {
        // Step 3a: after the new data, a SACK or a duplicate: real loss.
        if a.sacked || !a.advanced {
            Frto::Real
        } else {
            Frto::Wait
        }
    } else if a.advanced && !a.recovered {
        // Step 2: the first ACK advancing snd_una.
        if a.room {
            Frto::SendNew
        } else {
            Frto::Real
        }
    } else {
        Frto::Wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decisions_of_linux_worked_examples() {
        // prr-frto-undo.md 4.4 (spurious): ACK A, the late ACK of the
        // original P1, advances snd_una with room: new data. ACK B acks the
        // original P2: spurious.
        let a = LossAck {
            advanced: true,
            room: true,
            ..Default::default()
        };
        assert_eq!(on_ack(a), Frto::SendNew);
        let b = LossAck {
            orig_delivered: true,
            new_data_sent: true,
            advanced: true,
            ..Default::default()
        };
        assert_eq!(on_ack(b), Frto::Spurious);
        // 4.5 (genuine): ACK B duplicates and SACKs the new P11: real.
        let b = LossAck {
            new_data_sent: true,
            sacked: true,
            ..Default::default()
        };
        assert_eq!(on_ack(b), Frto::Real);
        // No room for new data at step 2: conventional recovery.
        let a = LossAck {
            advanced: true,
            ..Default::default()
        };
        assert_eq!(on_ack(a), Frto::Real);
        // An ACK that ends the Loss state outright decides nothing here.
        let r = LossAck {
            advanced: true,
            recovered: true,
            room: true,
            ..Default::default()
        };
        assert_eq!(on_ack(r), Frto::Wait);
    }
}
