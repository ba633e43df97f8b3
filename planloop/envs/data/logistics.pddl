; Logistics over declared types: trucks move packages within a city, airplanes between
; the cities' airports.
(define (domain logistics-typed)
  (:requirements :strips :typing)
  (:types city location physobj - object
          airport - location
          package vehicle - physobj
          truck airplane - vehicle)
  (:predicates (in-city ?l - location ?c - city) (at ?o - physobj ?l - location)
               (in ?p - package ?v - vehicle))
  (:action load-truck
    :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (at ?p ?l))
    :effect (and (in ?p ?t) (not (at ?p ?l))))
  (:action unload-truck
    :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (in ?p ?t))
    :effect (and (at ?p ?l) (not (in ?p ?t))))
  (:action drive-truck
    :parameters (?t - truck ?from - location ?to - location ?c - city)
    :precondition (and (at ?t ?from) (in-city ?from ?c) (in-city ?to ?c))
    :effect (and (at ?t ?to) (not (at ?t ?from))))
  (:action load-airplane
    :parameters (?p - package ?a - airplane ?l - airport)
    :precondition (and (at ?a ?l) (at ?p ?l))
    :effect (and (in ?p ?a) (not (at ?p ?l))))
  (:action unload-airplane
    :parameters (?p - package ?a - airplane ?l - airport)
    :precondition (and (at ?a ?l) (in ?p ?a))
    :effect (and (at ?p ?l) (not (in ?p ?a))))
  (:action fly-airplane
    :parameters (?a - airplane ?from - airport ?to - airport)
    :precondition (at ?a ?from)
    :effect (and (at ?a ?to) (not (at ?a ?from)))))
