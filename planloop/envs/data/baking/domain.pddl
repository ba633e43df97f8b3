; Household baking: a robot bakes cakes and souffles.
;
; Ingredients wait in measuring cups (eggs in their shells). They are poured into a
; mixing bowl, or cracked into a bowl (an egg cracked into a small bowl can have its yolk
; separated into a mixing bowl), beaten into a batter by the electric stand mixer, moved
; into a pan with the spatula, baked in the oven (one pan at a time), taken out, left to
; cool and served on a plate with the spatula. A cake needs a whole egg, a large portion
; of flour, sugar, butter and baking powder; a souffle needs an egg yolk, a small portion
; of flour, sugar and butter, and no baking powder. A bowl takes one ingredient of each
; kind, every ingredient is used once, and moving batter or food dirties the spatula.
(define (domain baking)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types
    container pan measuring-cup ingredient mixture oven spatula mixer plate - object
    mixing-bowl small-bowl - container
    egg flour sugar butter baking-powder - ingredient)

  (:predicates
    (in-shell ?e - egg)
    (in-cup ?i - ingredient ?m - measuring-cup)
    (in-container ?i - ingredient ?c - container)
    (yolk-only ?e - egg)
    (large-portion ?f - flour)
    (small-portion ?f - flour)
    (used ?i - ingredient)
    (has-egg ?c - container)
    (has-flour ?c - container)
    (has-sugar ?c - container)
    (has-butter ?c - container)
    (has-baking-powder ?c - container)
    (container-dirty ?c - container)
    (holds-batter ?c - container)
    (attached ?c - container ?m - mixer)
    (mixer-free ?m - mixer)
    (unmade ?x - mixture)
    (cake-batter ?x - mixture)
    (souffle-batter ?x - mixture)
    (mixture-in ?x - mixture ?c - container)
    (in-pan ?x - mixture ?p - pan)
    (pan-empty ?p - pan)
    (pan-on-counter ?p - pan)
    (pan-hot ?p - pan)
    (spatula-clean ?s - spatula)
    (pan-in-oven ?p - pan ?o - oven)
    (oven-empty ?o - oven)
    (oven-on ?o - oven)
    (oven-off ?o - oven)
    (is-cake ?x - mixture)
    (is-souffle ?x - mixture)
    (on-plate ?x - mixture ?pl - plate)
    (plate-empty ?pl - plate))

  (:action crack-egg
    :parameters (?e - egg ?c - container)
    :precondition (and (in-shell ?e) (not (has-egg ?c)) (not (container-dirty ?c))
                       (not (holds-batter ?c)))
    :effect (and (not (in-shell ?e)) (in-container ?e ?c) (has-egg ?c)))

  (:action separate-yolk
    :parameters (?e - egg ?from - container ?to - mixing-bowl)
    :precondition (and (in-container ?e ?from) (has-egg ?from) (not (yolk-only ?e))
                       (not (= ?from ?to)) (not (has-egg ?to)) (not (container-dirty ?to))
                       (not (holds-batter ?to)))
    :effect (and (not (in-container ?e ?from)) (not (has-egg ?from)) (container-dirty ?from)
                 (in-container ?e ?to) (has-egg ?to) (yolk-only ?e)))

  (:action pour-flour
    :parameters (?f - flour ?m - measuring-cup ?c - mixing-bowl)
    :precondition (and (in-cup ?f ?m) (not (has-flour ?c)) (not (container-dirty ?c))
                       (not (holds-batter ?c)))
    :effect (and (not (in-cup ?f ?m)) (in-container ?f ?c) (has-flour ?c)))

  (:action pour-sugar
    :parameters (?s - sugar ?m - measuring-cup ?c - mixing-bowl)
    :precondition (and (in-cup ?s ?m) (not (has-sugar ?c)) (not (container-dirty ?c))
                       (not (holds-batter ?c)))
    :effect (and (not (in-cup ?s ?m)) (in-container ?s ?c) (has-sugar ?c)))

  (:action pour-butter
    :parameters (?b - butter ?m - measuring-cup ?c - mixing-bowl)
    :precondition (and (in-cup ?b ?m) (not (has-butter ?c)) (not (container-dirty ?c))
                       (not (holds-batter ?c)))
    :effect (and (not (in-cup ?b ?m)) (in-container ?b ?c) (has-butter ?c)))

  (:action pour-baking-powder
    :parameters (?p - baking-powder ?m - measuring-cup ?c - mixing-bowl)
    :precondition (and (in-cup ?p ?m) (not (has-baking-powder ?c))
                       (not (container-dirty ?c)) (not (holds-batter ?c)))
    :effect (and (not (in-cup ?p ?m)) (in-container ?p ?c) (has-baking-powder ?c)))

  (:action attach-bowl
    :parameters (?c - mixing-bowl ?m - mixer)
    :precondition (mixer-free ?m)
    :effect (and (not (mixer-free ?m)) (attached ?c ?m)))

  (:action detach-bowl
    :parameters (?c - mixing-bowl ?m - mixer)
    :precondition (attached ?c ?m)
    :effect (and (not (attached ?c ?m)) (mixer-free ?m)))

  (:action beat-cake-batter
    :parameters (?c - mixing-bowl ?m - mixer ?x - mixture ?e - egg ?f - flour ?s - sugar
                 ?b - butter ?p - baking-powder)
    :precondition (and (attached ?c ?m) (unmade ?x)
                       (in-container ?e ?c) (not (yolk-only ?e))
                       (in-container ?f ?c) (large-portion ?f)
                       (in-container ?s ?c) (in-container ?b ?c) (in-container ?p ?c)
                       (has-egg ?c) (has-flour ?c) (has-sugar ?c) (has-butter ?c)
                       (has-baking-powder ?c))
    :effect (and (not (unmade ?x)) (cake-batter ?x) (mixture-in ?x ?c) (holds-batter ?c)
                 (not (in-container ?e ?c)) (not (in-container ?f ?c))
                 (not (in-container ?s ?c)) (not (in-container ?b ?c))
                 (not (in-container ?p ?c))
                 (used ?e) (used ?f) (used ?s) (used ?b) (used ?p)
                 (not (has-egg ?c)) (not (has-flour ?c)) (not (has-sugar ?c))
                 (not (has-butter ?c)) (not (has-baking-powder ?c))))

  (:action beat-souffle-batter
    :parameters (?c - mixing-bowl ?m - mixer ?x - mixture ?e - egg ?f - flour ?s - sugar
                 ?b - butter)
    :precondition (and (attached ?c ?m) (unmade ?x)
                       (in-container ?e ?c) (yolk-only ?e)
                       (in-container ?f ?c) (small-portion ?f)
                       (in-container ?s ?c) (in-container ?b ?c)
                       (has-egg ?c) (has-flour ?c) (has-sugar ?c) (has-butter ?c)
                       (not (has-baking-powder ?c)))
    :effect (and (not (unmade ?x)) (souffle-batter ?x) (mixture-in ?x ?c) (holds-batter ?c)
                 (not (in-container ?e ?c)) (not (in-container ?f ?c))
                 (not (in-container ?s ?c)) (not (in-container ?b ?c))
                 (used ?e) (used ?f) (used ?s) (used ?b)
                 (not (has-egg ?c)) (not (has-flour ?c)) (not (has-sugar ?c))
                 (not (has-butter ?c))))

  (:action transfer-batter
    :parameters (?x - mixture ?c - mixing-bowl ?p - pan ?s - spatula)
    :precondition (and (mixture-in ?x ?c) (holds-batter ?c) (pan-empty ?p) (pan-on-counter ?p)
                       (spatula-clean ?s))
    :effect (and (not (mixture-in ?x ?c)) (not (holds-batter ?c)) (container-dirty ?c)
                 (in-pan ?x ?p) (not (pan-empty ?p)) (not (spatula-clean ?s))))

  (:action wash-container
    :parameters (?c - container)
    :precondition (and (container-dirty ?c) (not (holds-batter ?c)))
    :effect (not (container-dirty ?c)))

  (:action wash-spatula
    :parameters (?s - spatula)
    :precondition (not (spatula-clean ?s))
    :effect (spatula-clean ?s))

  (:action put-pan-in-oven
    :parameters (?p - pan ?o - oven)
    :precondition (and (pan-on-counter ?p) (oven-empty ?o))
    :effect (and (not (pan-on-counter ?p)) (not (oven-empty ?o)) (pan-in-oven ?p ?o)))

  (:action take-pan-out
    :parameters (?p - pan ?o - oven)
    :precondition (pan-in-oven ?p ?o)
    :effect (and (not (pan-in-oven ?p ?o)) (oven-empty ?o) (pan-on-counter ?p)))

  (:action turn-on-oven
    :parameters (?o - oven)
    :precondition (oven-off ?o)
    :effect (and (not (oven-off ?o)) (oven-on ?o)))

  (:action turn-off-oven
    :parameters (?o - oven)
    :precondition (oven-on ?o)
    :effect (and (not (oven-on ?o)) (oven-off ?o)))

  (:action bake-cake
    :parameters (?x - mixture ?p - pan ?o - oven)
    :precondition (and (cake-batter ?x) (in-pan ?x ?p) (pan-in-oven ?p ?o) (oven-on ?o))
    :effect (and (not (cake-batter ?x)) (is-cake ?x) (pan-hot ?p)))

  (:action bake-souffle
    :parameters (?x - mixture ?p - pan ?o - oven)
    :precondition (and (souffle-batter ?x) (in-pan ?x ?p) (pan-in-oven ?p ?o) (oven-on ?o))
    :effect (and (not (souffle-batter ?x)) (is-souffle ?x) (pan-hot ?p)))

  (:action let-cool
    :parameters (?p - pan)
    :precondition (and (pan-hot ?p) (pan-on-counter ?p))
    :effect (not (pan-hot ?p)))

  (:action serve-on-plate
    :parameters (?x - mixture ?p - pan ?pl - plate ?s - spatula)
    :precondition (and (in-pan ?x ?p) (pan-on-counter ?p) (not (pan-hot ?p))
                       (not (cake-batter ?x)) (not (souffle-batter ?x)) (plate-empty ?pl)
                       (spatula-clean ?s))
    :effect (and (not (in-pan ?x ?p)) (on-plate ?x ?pl) (not (plate-empty ?pl))
                 (not (spatula-clean ?s))))
)
