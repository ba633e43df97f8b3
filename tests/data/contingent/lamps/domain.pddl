; A test domain for the belief tracker: conditional effects whose condition is unknown
; (flip, relay) and sensing (look); relay mixes two components of the belief.
(define (domain lamps)
  (:requirements :strips :typing :equality :negative-preconditions :conditional-effects
                 :contingent)
  (:types lamp)
  (:predicates (lit ?l - lamp) (checked ?l - lamp))
  (:action look
    :parameters (?l - lamp)
    :observe (lit ?l))
  (:action flip
    :parameters (?l - lamp)
    :effect (and (when (lit ?l) (not (lit ?l))) (when (not (lit ?l)) (lit ?l))))
  (:action relay
    :parameters (?l ?m - lamp)
    :precondition (not (= ?l ?m))
    :effect (when (lit ?l) (lit ?m)))
  (:action check
    :parameters (?l - lamp)
    :precondition (lit ?l)
    :effect (checked ?l)))
