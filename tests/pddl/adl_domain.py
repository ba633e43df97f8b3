"""A small typed domain that uses every ADL construct the core supports."""

DOMAIN = """
(define (domain depot-adl)
  (:requirements :adl :typing :action-costs)
  (:types truck car - vehicle  vehicle package place - object)
  (:constants depot - place)
  (:predicates (at ?v - vehicle ?p - place) (in ?k - package ?v - vehicle)
               (pkg-at ?k - package ?p - place) (road ?a - place ?b - place)
               (fueled ?v - vehicle) (delivered ?k - package) (alarm))
  (:functions (total-cost) - number)
  (:action drive
    :parameters (?v - (either truck car) ?from - place ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to) (not (= ?from ?to)) (fueled ?v))
    :effect (and (not (at ?v ?from)) (at ?v ?to) (increase (total-cost) 1)))
  (:action load
    :parameters (?k - package ?v - truck ?p - place)
    :precondition (and (pkg-at ?k ?p) (at ?v ?p)
                       (not (exists (?other - package) (in ?other ?v))))
    :effect (and (not (pkg-at ?k ?p)) (in ?k ?v)))
  (:action unload-all
    :parameters (?v - truck ?p - place)
    :precondition (and (at ?v ?p) (exists (?k - package) (in ?k ?v)))
    :effect (forall (?k - package)
              (when (in ?k ?v)
                (and (not (in ?k ?v)) (pkg-at ?k ?p)
                     (when (= ?p depot) (delivered ?k))))))
  (:action sound-alarm
    :parameters ()
    :precondition (forall (?k - package) (imply (pkg-at ?k depot) (delivered ?k)))
    :effect (alarm))
)
"""

PROBLEM = """
(define (problem move-two)
  (:domain depot-adl)
  (:objects t1 - truck c1 - car p1 p2 - package home shop - place)
  (:init (at t1 home) (at c1 shop) (fueled t1) (pkg-at p1 home) (pkg-at p2 shop)
         (road home shop) (road shop home) (road shop depot) (road depot shop)
         (= (total-cost) 0))
  (:goal (and (delivered p1) (delivered p2)))
  (:metric minimize (total-cost))
)
"""
